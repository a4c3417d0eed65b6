`include "simt_fault.vh"
// Test-only launch-image driver (docs/verification.md "Image load"): writes a launch image into the
// GPU's IMAGE register through the host interface, one word per accepted access, the protocol the
// Python host agent (tb/agents/host_bfm.py) drives. The RTL under test sees the same host writes; the
// harness pays one callback per launch instead of a few per word.
//
// The image: the file named by the plusarg +SIMT_IMAGE=<path>, one hex word per line, written by Python
// (tb/agents/host_agent.py) before each load. The load handshake with Python: set `words` (the image's
// length) and raise `go`; the loader reads the file ($readmemh, at that edge), writes `words` words,
// then raises `done`; Python lowers `go`, and `done` falls at the next edge. `go` is ignored until the
// first reset (the harness drives it low before that reset, whichever load it uses). `busy` is high from the
// first word's access to the last one's: meanwhile the wrapper hands the host port to the loader.
//
// Two wrappers use it: the native top (simt_gpu_tb: valid/ready, AXI_LITE = 0) and the AXI top
// (simt_gpu_axi_tb: AXI_LITE = 1, an AXI4-Lite write per word, AW and W together, then B, whose
// response must be OKAY, as cocotbext-axi's AxiLiteMaster does it). `max_words` tells Python the
// longest image it holds.
//
// Planted faults (rtl/include/simt_fault.vh; harness faults: the loader is test-only): 16 flips bit 0
// of the image's second-to-last word (the last word before END's header: an input's last word in an
// image with DATA); 17 leaves the image's last word unwritten (the loader still raises `done`).
module simt_tb_loader #(
    parameter integer MAX_WORDS = 1 << 16,
    parameter integer AXI_LITE  = 0,
    parameter integer ADDR_W    = 8,           // address width of the host port (AXI-Lite: byte address)
    parameter [ADDR_W-1:0] IMAGE_ADDR = 4      // the IMAGE register (AXI-Lite: its byte address, 4 * 4)
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              go,
    input  wire [31:0]       words,
    output reg               busy,
    output reg               done,
    output wire [31:0]       max_words,
    // native host port (AXI_LITE = 0): a write while valid; taken at the edge where ready is high
    output reg               m_valid,
    input  wire              m_ready,
    // AXI4-Lite write channels (AXI_LITE = 1); m_valid above is unused
    output reg               aw_valid,
    input  wire              aw_ready,
    output reg               w_valid,
    input  wire              w_ready,
    input  wire              b_valid,
    input  wire [1:0]        b_resp,
    output reg               b_ready,
    // both
    output wire [ADDR_W-1:0] m_addr,
    output reg  [31:0]       m_wdata
);
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif
    reg [31:0] image [0:MAX_WORDS-1];
    reg [8*1024-1:0] path;
    reg        have_path;
    reg        armed;    // a reset was seen: before it `go` and `words` may be anything (Verilator's random start)
    reg [31:0] i;        // the word being offered
    wire [31:0] n;       // words to write: the image's (fault 17: one fewer)
`ifdef SIMT_FAULTS
    assign n = (simt_fault == `SIMT_FAULT_LOAD_SHORT) ? words - 32'd1 : words;
`else
    assign n = words;
`endif

    assign max_words = MAX_WORDS;
    assign m_addr = IMAGE_ADDR;

    initial begin
        have_path = $value$plusargs("SIMT_IMAGE=%s", path) != 0;
        busy = 1'b0; done = 1'b0; m_valid = 1'b0; aw_valid = 1'b0; w_valid = 1'b0; b_ready = 1'b0;
        m_wdata = 32'd0; i = 32'd0; armed = 1'b0;
    end

    // word k of the image as written (fault 16 flips bit 0 of the second-to-last word); k < words <=
    // MAX_WORDS, so the index's high bits are zero (used only by the fault build's compare)
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [31:0] word(input [31:0] k);
        begin
            word = image[k];
`ifdef SIMT_FAULTS
            if (simt_fault == `SIMT_FAULT_LOAD_BITFLIP && k + 32'd2 == words) word = word ^ 32'd1;
`endif
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    // offer word k (AXI-Lite: on AW and W)
    task automatic offer(input [31:0] k);
        begin
            i <= k;
            m_wdata <= word(k);
            if (AXI_LITE != 0) begin aw_valid <= 1'b1; w_valid <= 1'b1; end
            else m_valid <= 1'b1;
        end
    endtask

    // word i was taken: offer the next, or be done after the last
    task automatic advance;
        begin
            if (i + 32'd1 >= n) begin
                busy <= 1'b0; done <= 1'b1; m_valid <= 1'b0;
            end else offer(i + 32'd1);
        end
    endtask

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0; done <= 1'b0; m_valid <= 1'b0; aw_valid <= 1'b0; w_valid <= 1'b0; b_ready <= 1'b0;
            armed <= 1'b1;
        end else if (armed && !busy && !done && go) begin
            if (!have_path) $fatal(1, "simt_tb_loader: load requested but no +SIMT_IMAGE=<file> plusarg");
            if (words < 1 || words > MAX_WORDS)
                $fatal(1, "simt_tb_loader: image of %0d words; this loader holds 1..%0d", words, MAX_WORDS);
            $readmemh(path, image, 0, words - 1);
            if (n < 1) done <= 1'b1;
            else begin
                busy <= 1'b1;
                offer(32'd0);
            end
        end else if (busy && AXI_LITE == 0) begin
            if (m_valid && m_ready) advance;
        end else if (busy) begin
            // AXI4-Lite: AW and W offered together, each dropped once taken; then the B response
            if (aw_valid && aw_ready) aw_valid <= 1'b0;
            if (w_valid && w_ready) w_valid <= 1'b0;
            if ((!aw_valid || aw_ready) && (!w_valid || w_ready) && (aw_valid || w_valid)) b_ready <= 1'b1;
            if (b_ready && b_valid) begin
                if (b_resp != 2'b00)
                    $fatal(1, "simt_tb_loader: AXI-Lite write of image word %0d answered %0d, expected OKAY", i, b_resp);
                b_ready <= 1'b0;
                advance;
            end
        end else if (done && !go) done <= 1'b0;
    end
endmodule

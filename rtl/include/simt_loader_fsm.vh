// Loader state and record encodings, shared by simt_loader (which sequences them) and
// simt_image_check (which judges each word by them): included inside both module bodies, so the two
// can never disagree on a code.
// Each includer uses only some of the codes, so unused ones are not warnings here.
/* verilator lint_off UNUSEDPARAM */
// States (also shown in STATUS bits 7..4, docs/gpu.md).
localparam [3:0] S_IDLE    = 4'd0,  // no image: waiting for a magic word
                 S_VERSION = 4'd1,  // magic seen: the next word is the version
                 S_HEADER  = 4'd2,  // a record header
                 S_PAYLOAD = 4'd3,  // payload of GRID .. CONST (record `rec`)
                 S_DBASE   = 4'd4,  // DATA base address
                 S_DPAY    = 4'd5,  // DATA words
                 S_FLUSH   = 4'd6,  // END seen: waiting for store acknowledgements and cfg_slots
                 S_LOADED  = 4'd7,  // a valid image is held
                 S_ERROR   = 4'd8;  // an illegal image: words ignored until a magic word
// Records in their mandatory order; `rec` is the next one expected (REC_TAIL: DATA or END).
localparam [2:0] REC_GRID = 3'd0, REC_BLOCK = 3'd1, REC_REGS = 3'd2, REC_SHARED = 3'd3,
                 REC_PARAM = 3'd4, REC_INSTR = 3'd5, REC_CONST = 3'd6, REC_TAIL = 3'd7;
/* verilator lint_on UNUSEDPARAM */

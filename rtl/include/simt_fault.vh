// simt_fault.vh -- test-only fault hooks (docs/sm.md "Test-only fault hooks").
//
// The meta-tests prove that each scoreboard can fail by running the design with one real fault
// planted. A fault exists only in a build with `define SIMT_FAULTS (simulator option -DSIMT_FAULTS);
// every hook sits inside `ifdef SIMT_FAULTS, so a normal build contains none of this logic.
//
// A module that carries a fault places `SIMT_FAULT_PLUSARG in its body: it declares the integer
// `simt_fault` and reads it once from the plusarg +SIMT_FAULT=n (0, no fault, when absent). Each
// module reads the plusarg itself, so no fault number has to travel through ports.
`ifndef SIMT_FAULT_VH
`define SIMT_FAULT_VH

`define SIMT_FAULT_PLUSARG \
    integer simt_fault; \
    initial if (!$value$plusargs("SIMT_FAULT=%d", simt_fault)) simt_fault = 0;

// Fault numbers (+SIMT_FAULT=n)
`define SIMT_FAULT_LANE_VALUE  1  // simt_execute: bit 0 of warp lane 1's ALU result flipped
`define SIMT_FAULT_DROPPED_POP 2  // simt_div_stack: the first reconvergence pop does not happen
`define SIMT_FAULT_WRONG_BANK  3  // simt_shared_lsu: store rows write bank (b+1) mod NUM_BANKS
`define SIMT_FAULT_LOST_TXN    4  // simt_gmem_unit: the first store transaction never leaves
`define SIMT_FAULT_SERIAL_ISSUE 5 // simt_issue: F grants only when DEC, EX and CM are empty (no overlap)
`define SIMT_FAULT_STALE_TOKEN 6  // simt_issue: a reset after the first retire keeps DEC's instruction
`define SIMT_FAULT_DEBUG_PC    7  // simt_sm: the debug view (hang report) shows each warp's pc + 1
`define SIMT_FAULT_PORT_PRIORITY 8 // simt_execute: EX's row takes the write port when the SWB must write (hold_swb)
`define SIMT_FAULT_STALE_SWB   9  // simt_execute: after the first shared row, reset misses the LSU and writeback
`define SIMT_FAULT_NO_IGNORED 10  // simt_ignore_flag: STATUS.IGNORED never rises (the writes are still ignored)
`define SIMT_FAULT_NO_HOLD     12 // simt_scoreboard: DEC's token enters EX while its warp has a shared access in the SWB
`define SIMT_FAULT_STICKY_AXI_ERROR 11 // simt_axi_mem_bridge: axi_error bit 0 (error response) survives reset
`define SIMT_FAULT_SWB_HEAD_ROW 13 // simt_shared_wb: a landing load row is written at the oldest entry's rd
`define SIMT_FAULT_MAX_SUMMED  14 // simt_sm_select: the combined max_stack_depth is summed like the others
`define SIMT_FAULT_IDLE_UNGATED 15 // simt_perf: idle cycles count also while no launch runs
// harness faults (tb/hdl/simt_tb_loader.v, the HDL image driver): what a broken image load looks like
`define SIMT_FAULT_LOAD_BITFLIP 16 // simt_tb_loader: bit 0 of the image's second-to-last word flipped
`define SIMT_FAULT_LOAD_SHORT  17 // simt_tb_loader: the image's last word is not written
`define SIMT_FAULT_TID_ENTRY   18 // simt_tid_table: entry 1 of every row is written with entry 0's tid
`define SIMT_FAULT_PACE_NEVER_STALLS 19 // simt_tb_axi_pace (test bench): the AXI pacing never holds a channel off
`define SIMT_FAULT_LOAD_SHOWS_B 21 // simt_gpu_axi_tb (test bench): the image driver's AXI-Lite write handshakes reach the host ports
`define SIMT_FAULT_SWB_PORT    22 // simt_shared_wb: a landed row is written in a cycle EX's row has the write port
`define SIMT_FAULT_NO_IDLE_FIRST 23 // simt_warp_table: the idle-warp rule is off (a warp far ahead is granted before an idle one)
`define SIMT_FAULT_SCHED_HISTORY 24 // simt_issue: the warp scheduler's pointer survives from the previous launch
`define SIMT_FAULT_ARB_HISTORY 25 // simt_mem_arbiter: the round-robin pointer survives from the previous launch
`define SIMT_FAULT_POSTED_EARLY 26 // simt_gmem_unit (POST_STORES = 1): a store completes while its last transaction waits in the output stage
`define SIMT_FAULT_ACKS_IGNORED 27 // simt_gpu (POST_STORES = 1): the launch ends (DONE, BUSY low) with posted stores' acknowledgements outstanding
`define SIMT_FAULT_AHEAD_AT_RPC 28 // simt_warp_table (AHEAD_SSY = 1): a warp is released in a region although pc + 1 is the rpc
`define SIMT_FAULT_IRQ_NO_DONE 29 // simt_gpu: irq rises only on an error, not when a launch ends DONE

`endif

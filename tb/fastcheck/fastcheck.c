/* The launch checker's compiled fast path (tb/fastcheck/__init__.py; issue 29).
 *
 * Checks the trace's retire lines ("R <cycle> <sm> <fields>") in C: it steps the warp as spec/model.py's
 * Model.step would (ALU, LDS, shared, constant and global loads and stores, BRA, SSY, BEQ/BNE, BAR, EXIT:
 * partial, finishing the warp (releasing a barrier the block's other warps wait at) or finishing the
 * block (the shared board's check of the block's final shared memory); the divergence stack,
 * reconvergence and its record fields as spec/warp.py has them),
 * compares the record the way spec/retire_record.py's project() + == would, and counts what the
 * scoreboards, the model's counters and functional coverage count. It also takes the shared-memory
 * bank-write lines ("S ...": the shared board's mirror and each warp slot's pending writes,
 * tb/scoreboards/shared.py observe), compares a shared store's writes with the expected ones as
 * SharedMemoryScoreboard.check does, and takes the global-memory request and response lines ("Q ...",
 * "P ...": the memory agent's image, the outstanding requests, each warp slot's pending transactions,
 * the loader's words; tb/agents/trace_monitor.py _event, tb/scoreboards/coalescing.py), comparing a
 * global access's transactions as CoalescingScoreboard.check does.
 * It stops at the first line it does not take: another kind of line, another instruction class, a warp
 * it does not hold, an X/Z, a warp slot whose traffic the Python side holds, or ANY difference from the
 * model. The Python path then handles that line exactly as without the fast path (so a mismatch is
 * reported by the Python model with the same report), and the fast path carries on after it.
 *
 * Nothing is written before the record compared equal. The Python model (spec/) stays the
 * executable specification: tb/tests/model/test_fastcheck.py proves this file equal to it on random
 * kernels (make model). Built by tb/fastcheck/__init__.py with the system's gcc; no dependency.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { K_NONE = 0, K_ALU = 1, K_LDS = 2, K_LDSH = 3, K_LDC = 4, K_BRA = 5, K_BEQ = 6, K_BNE = 7, K_STSH = 8, K_BAR = 9,
       K_LDG = 10, K_STG = 11, K_SSY = 12, K_EXIT = 13 };
enum {
    A_NOP, A_MAD, A_MUL, A_ADD, A_SUB, A_SLT, A_SGT, A_SHR, A_SHL, A_NOT, A_AND, A_OR, A_XOR, A_SLTU,
    A_SGTU, A_SEQ, A_SNE, A_MIN, A_MAX, A_MINU, A_MAXU, A_SRA, A_MULHU, A_MV
};
#define OPND_IMM (-1)
#define OPND_NONE (-2)
#define NF 22    /* fields of a retire record (spec/retire_record.py FIELDS); checked by the Python side */
#define F_VALUES 7
#define MAXW 32
#define NCNT 56  /* counters[]: see tb/fastcheck/__init__.py FastPath.flush (units <= 8) */
#define SMAX 64  /* bank writes of one S line taken here at most */
#define SEGMAX 32 /* words of a global-memory segment (spec/config.py seg_words) */
#define GQ_HDR 6  /* a held transaction: addr, mask, write, tag, cycle, seq, then seg_words data words */

typedef struct {
    int32_t kind, op, rd, a, b, c, unit, target;
    uint32_t imm, word;
} Ins;

typedef struct {
    /* configuration */
    int32_t W, wpb, nwarps, ncode, num_lanes, num_banks, nsms, busy_stride, nparams_limit, hist_len;
    int64_t budget, nconsts;
    const Ins *code;
    const uint32_t *consts;
    /* per warp k = block * wpb + warp */
    uint8_t *ready;  /* 1: the fast path may step it (started, READY, empty stack) */
    uint8_t *dirty;  /* stepped here since the last flush */
    int32_t *pc;
    int64_t *count;
    uint32_t *mask, *valid;
    uint32_t **regs, **sregs, **shared;
    int64_t *shared_len;
    uint8_t *busy;   /* [sm * busy_stride + warp slot]: the shared-memory board (1) or the coalescing board (2)
                        holds traffic of it */
    int32_t *last_b, *last_w; /* per SM: the last retire coverage saw (-1: none) */
    /* outputs */
    int64_t *counters;
    int32_t *dirty_list;
    int64_t ndirty, dirty_cap;
    uint32_t *cov;   /* (pc, mask, valid, switch) per checked retire; switch 3: none */
    int64_t ncov, cov_cap;
    uint32_t *shl;   /* (mask, W addresses) per shared load */
    int64_t nshl, shl_cap;
    uint32_t *hist;  /* [k][hist_len] (pc, mask) ring */
    int64_t *hpos;
    int64_t last_cycle;
    int32_t last_sm, last_k;
    /* shared-memory writes (S lines) taken here: the board's mirror and the writes of each warp slot
       not yet accounted for by a retire (tb/scoreboards/shared.py observe/check) */
    uint32_t **mirror;   /* [sm] the shared board's mirror of the SM's physical shared memory */
    int64_t mirror_len, sh_stride, pend_cap;
    uint32_t *pend;      /* [sm * busy_stride + warp slot][pend_cap][2]: (physical address, data) */
    int32_t *npend;
    int64_t npend_total;
    /* barriers: every warp's state as the model has it (0 READY, 1 WAITING, 2 other), live threads, empty
       stack; the blocks' epochs advanced; arrivals (block, warp, released) for coverage */
    uint8_t *wstate;
    uint32_t *live;
    uint8_t *nostack;   /* 1: the fast path holds the warp's whole state (its stack fits; see ready) */
    /* the divergence stack of every warp (spec/warp.py Warp.stack): [k][depth_limit] (kind 0 SYNC, 1 DIV,
       pc, mask), its depth, and the threads that exited */
    uint32_t *stack;
    int32_t *sdepth;
    uint32_t *exited;
    int32_t depth_limit;
    int64_t *epoch_inc;
    uint32_t *arr;       /* (block, warp, how): how 0 a BAR that released nothing, 1 a BAR that released its
                            block, 2 a finishing EXIT that released it (no arrival) */
    int64_t narr, arr_cap;
    int32_t *bdone;      /* (block, sm) of each block a checked EXIT finished (the model's Block.done and
                            coverage's residency, handed over by FastPath.flush) */
    int64_t nbdone, bdone_cap;
    /* global memory (Q/P lines, tb/agents/trace_monitor.py _event and what its subscribers do: the
       coalescing board's on_request/on_response, GmemAgent.write_request, coverage's response) */
    int32_t qp_on, seg_words, tag_w, idx_w;
    uint32_t wid_mask;
    uint32_t *gmem;       /* the model's global memory */
    int64_t gmem_len;
    uint32_t *hostmem;    /* the memory agent's image of global memory (NULL: no memory agent) */
    int64_t hostmem_len;
    const uint32_t *lkeys, *lvals; /* the loader's expected words (sorted addresses, data) */
    uint8_t *ldone;       /* ... written by the loader (handed to CoalescingScoreboard.loader_done) */
    int64_t nload;
    uint32_t *otag;       /* outstanding requests in acceptance order: tag, cycle (monitor._pending and */
    int64_t *ocyc;        /* the coalescing board's outstanding, held here) */
    int64_t nout, out_cap;
    uint32_t *gq;         /* [sm * busy_stride + warp slot][gq_cap][GQ_HDR + seg_words]: the board's pending */
    int32_t *ngq;
    int64_t gq_cap, ngq_total, qseq;
    int32_t plant;   /* planted faults the differential test must catch (0 in use): 1 = an ADD writes its
                        result + 1 after comparing; 2 = lane 0's value is not compared;
                        3 = a shared store's bank writes are compared by count only;
                        4 = a BAR releases its block's barrier whatever the other warps do;
                        5 = a global store's transaction data is not compared;
                        6 = a global load writes word 0 of memory to lane 0 after comparing;
                        7 = a response's latency is counted as 1;
                        8 = a merge into a DIV entry is undone after comparing (the stack diverges);
                        9 = the top of the stack is not compared;
                        10 = a finishing EXIT does not record its threads as exited after comparing;
                        11 = a finished block's shared memory is not compared with the mirror;
                        12 = a finishing EXIT never releases its block's barrier */
} St;

/* each byte's hex digit value + 1, 0 for a byte that is no hex digit: one load a digit instead of
   three range tests (a 32-lane retire line carries ~300 digits) */
static const unsigned char HEX1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9,
    ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11,
    ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hexval(int ch) { return (int)HEX1[ch & 255] - 1; }

/* one hex token of at most 16 digits ending at a space or newline; -1 on anything else */
static int hex_token(const char **pp, const char *end, uint64_t *out) {
    const char *p = *pp;
    uint64_t v = 0;
    int n = 0;
    while (p < end && *p != ' ' && *p != '\n') {
        int d = hexval((unsigned char)*p);
        if (d < 0 || n >= 16) return -1;
        v = (v << 4) | (uint64_t)d;
        p++;
        n++;
    }
    if (n == 0) return -1;
    *out = v;
    *pp = p;
    return 0;
}

static uint32_t alu(int op, uint32_t a, uint32_t b, uint32_t c) {
    switch (op) {
    case A_MAD: return a * b + c;
    case A_MUL: return a * b;
    case A_ADD: return a + b;
    case A_SUB: return a - b;
    case A_SLT: return (int32_t)a < (int32_t)b;
    case A_SGT: return (int32_t)a > (int32_t)b;
    case A_SHR: return b < 32 ? a >> (b & 31) : 0;
    case A_SHL: return b < 32 ? a << (b & 31) : 0;
    case A_NOT: return ~a;
    case A_AND: return a & b;
    case A_OR: return a | b;
    case A_XOR: return a ^ b;
    case A_SLTU: return a < b;
    case A_SGTU: return a > b;
    case A_SEQ: return a == b;
    case A_SNE: return a != b;
    case A_MIN: return (int32_t)a < (int32_t)b ? a : b;
    case A_MAX: return (int32_t)a > (int32_t)b ? a : b;
    case A_MINU: return a < b ? a : b;
    case A_MAXU: return a > b ? a : b;
    case A_SRA: return (uint32_t)((int32_t)a >> (b < 31 ? b : 31));
    case A_MULHU: return (uint32_t)(((uint64_t)a * (uint64_t)b) >> 32);
    case A_MV: return a;
    }
    return 0;
}

/* spec/model.py row_passes, summed: per row of num_lanes lanes, the most distinct active addresses
   that fall into one bank */
static int passes_of(const St *s, const uint32_t *addrs, uint32_t mask) {
    int total = 0;
    for (int lo = 0; lo < s->W; lo += s->num_lanes) {
        uint32_t distinct[MAXW];
        int nd = 0, worst = 0;
        for (int i = 0; i < s->num_lanes && lo + i < s->W; i++) {
            if (!(mask >> (lo + i) & 1)) continue;
            uint32_t a = addrs[lo + i];
            int seen = 0;
            for (int j = 0; j < nd; j++)
                if (distinct[j] == a) { seen = 1; break; }
            if (!seen) distinct[nd++] = a;
        }
        if (!nd) continue;
        for (int j = 0; j < nd; j++) {
            int n = 0;
            uint32_t bank = distinct[j] % (uint32_t)s->num_banks;
            for (int m = 0; m < nd; m++) n += distinct[m] % (uint32_t)s->num_banks == bank;
            if (n > worst) worst = n;
        }
        total += worst;
    }
    return total;
}

static int cmp_u64(const void *x, const void *y) {
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* A shared-memory bank-write line "S <cycle> <sm> <clear> <warp slot> <addr>:<data>...": what the trace
   monitor + SharedMemoryScoreboard.observe do (the mirror; a clear's count; else the warp slot's pending
   writes). Returns the offset after it, or -1 when the Python path must handle it. */
static int64_t s_line(St *s, const char *buf, int64_t pos, int64_t end) {
    const char *p = buf + pos + 2, *stop = buf + end;
    uint64_t cycle, smv = 0, clr, ws, a, d;
    uint32_t wa[SMAX], wd[SMAX];
    int n = 0;
    if (hex_token(&p, stop, &cycle) || *p != ' ') return -1;
    p++;
    {
        int nd = 0;
        while (p < stop && *p >= '0' && *p <= '9' && nd < 9) smv = smv * 10 + (uint64_t)(*p++ - '0'), nd++;
        if (!nd || *p != ' ') return -1;
    }
    p++;
    if (p + 2 > stop || (p[0] != '0' && p[0] != '1') || p[1] != ' ') return -1; /* clear: "0" or "1" */
    clr = p[0] == '1';
    p += 2;
    if (hex_token(&p, stop, &ws)) return -1;
    while (p < stop && *p == ' ') {
        p++;
        const char *q = p;
        while (q < stop && *q != ':' && *q != ' ' && *q != '\n') q++;
        if (q >= stop || *q != ':' || n >= SMAX) return -1;
        const char *t = p;
        {   /* address: hex up to ':' */
            uint64_t v = 0;
            int nd = 0;
            for (; t < q; t++, nd++) {
                int h = hexval((unsigned char)*t);
                if (h < 0 || nd >= 16) return -1;
                v = (v << 4) | (uint64_t)h;
            }
            if (!nd) return -1;
            a = v;
        }
        p = q + 1;
        if (hex_token(&p, stop, &d) || d > 0xFFFFFFFFu || a >= (uint64_t)s->mirror_len) return -1;
        wa[n] = (uint32_t)a, wd[n] = (uint32_t)d, n++;
    }
    if (p >= stop || *p != '\n' || !n) return -1;
    if (smv >= (uint64_t)s->nsms) return -1;
    const int sm = (int)smv;
    int64_t key = 0;
    if (!clr) {
        if (ws >= (uint64_t)s->busy_stride) return -1;
        key = (int64_t)sm * s->busy_stride + (int64_t)ws;
        if (s->busy[key] & 1 || s->npend[key] + n > s->pend_cap) return -1; /* the board holds some: Python's */
    }
    uint32_t *mirror = s->mirror[sm];
    for (int i = 0; i < n; i++) mirror[wa[i]] = wd[i];
    if (clr) {
        s->counters[24] += n; /* the shared board's clears */
    } else {
        uint32_t *e = s->pend + (key * s->pend_cap + s->npend[key]) * 2;
        for (int i = 0; i < n; i++) e[2 * i] = wa[i], e[2 * i + 1] = wd[i];
        s->npend[key] += n;
        s->npend_total += n;
    }
    s->last_cycle = (int64_t)cycle;
    return (p - buf) + 1;
}


/* hex digits [d0, d1) as little-endian 32-bit words (word i = bits 32i+31..32i), at most n words */
static int hex_words(const char *d0, const char *d1, uint32_t *out, int n) {
    if (d1 - d0 > 8 * n || d1 == d0) return -1;
    for (int i = 0; i < n; i++) out[i] = 0;
    int i = 0;
    for (const char *q = d1; q > d0; i++) {
        const char *lo = q - 8 > d0 ? q - 8 : d0;
        uint32_t v = 0;
        for (const char *t = lo; t < q; t++) {
            int h = hexval((unsigned char)*t);
            if (h < 0) return -1;
            v = v << 4 | (uint32_t)h;
        }
        out[i] = v;
        q = lo;
    }
    return 0;
}

static int next_tok(const char **pp, const char *stop, uint64_t *v) {
    if (hex_token(pp, stop, v) || *pp >= stop || **pp != ' ') return -1;
    (*pp)++;
    return 0;
}

/* A memory request "Q <cycle> <addr> <write> <mask> <data> <tag> <held>": what the trace monitor and its
   subscribers do with it (the memory agent's image, the coalescing board's outstanding and pending
   transactions or the loader's check). Returns the offset after it, or -1: the Python path's. */
static int64_t q_line(St *s, const char *buf, int64_t pos, int64_t end) {
    const char *p = buf + pos + 2, *stop = buf + end;
    uint64_t cycle, addr, wr, mask, tag, held;
    uint32_t data[SEGMAX];
    const int seg = s->seg_words;
    if (next_tok(&p, stop, &cycle) || next_tok(&p, stop, &addr) || next_tok(&p, stop, &wr) ||
        next_tok(&p, stop, &mask))
        return -1;
    const char *d0 = p;
    while (p < stop && hexval((unsigned char)*p) >= 0) p++;
    if (p >= stop || *p != ' ' || hex_words(d0, p, data, seg)) return -1;
    p++;
    if (next_tok(&p, stop, &tag)) return -1;
    const char *h0 = p;
    if (hex_token(&p, stop, &held) || p - h0 != 1 || p >= stop || *p != '\n') return -1; /* "0" or "1" */
    if (held > 1 || mask > 0xFFFFFFFFu || tag > 0xFFFFFFFFu || cycle > 0xFFFFFFFFu || s->nout >= s->out_cap)
        return -1;
    const uint64_t port = tag >> s->tag_w;
    int64_t key = -1, lpos[SEGMAX];
    if (port < (uint64_t)s->nsms) {
        for (int64_t i = 0; i < s->nout; i++)
            if (s->otag[i] == (uint32_t)tag) return -1; /* a tag reused while outstanding: Python's */
        const uint64_t wid = tag >> s->idx_w & s->wid_mask;
        if (wid >= (uint64_t)s->busy_stride) return -1;
        key = (int64_t)port * s->busy_stride + (int64_t)wid;
        if (s->busy[key] & 2 || s->ngq[key] >= s->gq_cap || addr > 0xFFFFFFFFu) return -1;
    } else if (port == (uint64_t)s->nsms) { /* the loader: writes of the image's DATA words only */
        if (!wr) return -1;
        for (int i = 0; i < seg; i++) {
            if (!(mask >> i & 1)) continue;
            const uint64_t a = addr + (uint64_t)i;
            int64_t lo = 0, hi = s->nload;
            while (lo < hi) {
                const int64_t mid = (lo + hi) / 2;
                if (s->lkeys[mid] < a) lo = mid + 1; else hi = mid;
            }
            if (lo >= s->nload || s->lkeys[lo] != a || s->lvals[lo] != data[i]) return -1;
            lpos[i] = lo;
        }
    } else {
        return -1;
    }
    if (wr && s->hostmem) {
        for (int i = 0; i < seg; i++)
            if (mask >> i & 1 && addr + (uint64_t)i >= (uint64_t)s->hostmem_len) return -1;
        for (int i = 0; i < seg; i++)
            if (mask >> i & 1) s->hostmem[addr + (uint64_t)i] = data[i];
    }
    if (key >= 0) {
        uint32_t *e = s->gq + (key * s->gq_cap + s->ngq[key]) * (GQ_HDR + seg);
        e[0] = (uint32_t)addr, e[1] = (uint32_t)mask, e[2] = wr != 0, e[3] = (uint32_t)tag;
        e[4] = (uint32_t)cycle, e[5] = (uint32_t)s->qseq;
        memcpy(e + GQ_HDR, data, sizeof(uint32_t) * (size_t)seg);
        s->ngq[key]++;
        s->ngq_total++;
    } else {
        for (int i = 0; i < seg; i++)
            if (mask >> i & 1) s->ldone[lpos[i]] = 1;
        s->counters[29] += 1; /* the coalescing board's loader_txns */
    }
    s->otag[s->nout] = (uint32_t)tag, s->ocyc[s->nout] = (int64_t)cycle;
    s->nout++;
    s->qseq++;
    s->counters[39] += 1; /* requests taken */
    s->counters[51] |= (int64_t)held; /* a request was held off (the coverage collector's flag) */
    s->last_cycle = (int64_t)cycle;
    return (p - buf) + 1;
}

/* A memory response "P <cycle> <tag> <rdata>": the oldest outstanding request of the tag is answered
   (latency and overtaking for coverage, as the trace monitor computes them). */
static int64_t p_line(St *s, const char *buf, int64_t pos, int64_t end) {
    const char *p = buf + pos + 2, *stop = buf + end;
    uint64_t cycle, tag;
    if (next_tok(&p, stop, &cycle) || next_tok(&p, stop, &tag)) return -1;
    const char *d0 = p;
    while (p < stop && hexval((unsigned char)*p) >= 0) p++;
    if (p == d0 || p >= stop || *p != '\n') return -1;
    int64_t i = 0;
    while (i < s->nout && (uint64_t)s->otag[i] != tag) i++;
    if (i >= s->nout) return -1; /* answers nothing outstanding: the Python path reports it */
    int64_t lat = (int64_t)cycle - s->ocyc[i];
    if (s->plant == 7) lat = 1;
    memmove(s->otag + i, s->otag + i + 1, sizeof(uint32_t) * (size_t)(s->nout - i - 1));
    memmove(s->ocyc + i, s->ocyc + i + 1, sizeof(int64_t) * (size_t)(s->nout - i - 1));
    s->nout--;
    int64_t *c = s->counters;
    c[30] += 1;             /* responses */
    c[i > 0 ? 33 : 32] += 1; /* coverage: gpu.memory.order in_order / overtaking */
    if (lat < 1) lat = 1;
    c[lat <= 1 ? 34 : lat <= 4 ? 35 : lat <= 16 ? 36 : lat <= 64 ? 37 : 38] += 1; /* latency buckets */
    s->last_cycle = (int64_t)cycle;
    return (p - buf) + 1;
}

/* spec/model.py _barrier_check after a warp of ``block`` arrived at its barrier or finished: when a warp
   of the block waits and none is READY (or ``force``: planted fault 4), every waiting warp becomes READY
   and the block's barrier epoch advances. Returns 1 when it released. */
static int barrier_check(St *s, uint64_t block, int force) {
    const int b0 = (int)block * s->wpb;
    int waiting = 0, none_ready = 1;
    for (int j = b0; j < b0 + s->wpb; j++) {
        waiting |= s->wstate[j] == 1;
        none_ready &= s->wstate[j] != 0;
    }
    if (!(waiting && none_ready) && !force) return 0;
    for (int j = b0; j < b0 + s->wpb; j++) {
        if (s->wstate[j] != 1) continue;
        s->wstate[j] = 0;
        s->ready[j] = s->nostack[j];
        if (!s->dirty[j]) s->dirty[j] = 1, s->dirty_list[s->ndirty++] = j;
    }
    s->epoch_inc[block] += 1;
    s->counters[26] += 1; /* barrier_releases */
    return 1;
}

/* Check retire lines of buf[pos:end) (whole lines) until the first one this does not take; return its
   offset (end: all taken). */
int64_t fc_run(St *s, const char *buf, int64_t pos, int64_t end) {
    const int W = s->W;
    const char *stop = buf + end;
    while (pos < end) {
        const char *p = buf + pos;
        if (p[0] == 'S' && p[1] == ' ') {
            const int64_t after = s_line(s, buf, pos, end);
            if (after < 0) return pos;
            pos = after;
            continue;
        }
        if ((p[0] == 'Q' || p[0] == 'P') && p[1] == ' ' && s->qp_on) {
            const int64_t after = p[0] == 'Q' ? q_line(s, buf, pos, end) : p_line(s, buf, pos, end);
            if (after < 0) return pos;
            pos = after;
            continue;
        }
        if (p[0] != 'R' || p[1] != ' ') return pos;
        if (s->ncov >= s->cov_cap || s->nshl >= s->shl_cap || s->ndirty + s->wpb + 1 > s->dirty_cap ||
            s->narr >= s->arr_cap || s->nbdone >= s->bdone_cap)
            return pos;
        p += 2;
        uint64_t cycle, smv = 0, f[NF];
        const char *vals = 0;
        if (hex_token(&p, stop, &cycle) || *p != ' ') return pos;
        p++;
        {   /* the SM number is decimal */
            int n = 0;
            while (p < stop && *p >= '0' && *p <= '9' && n < 9) smv = smv * 10 + (uint64_t)(*p++ - '0'), n++;
            if (!n || *p != ' ') return pos;
        }
        for (int i = 0; i < NF; i++) {
            if (*p != ' ') return pos;
            p++;
            if (i == F_VALUES) {
                vals = p;
                while (p < stop && *p != ' ' && *p != '\n') p++;
                if (p - vals != 8 * W) return pos;
                f[i] = 0;
                continue;
            }
            if (hex_token(&p, stop, &f[i])) return pos;
        }
        if (p >= stop || *p != '\n') return pos;
        const int64_t next = (p - buf) + 1;
        /* the warp and its instruction */
        const int sm = (int)smv;
        if (sm >= s->nsms) return pos;
        const uint64_t block = f[0], warp = f[1];
        if (warp >= (uint64_t)s->wpb || block >= (uint64_t)(s->nwarps / s->wpb)) return pos;
        const int k = (int)(block * (uint64_t)s->wpb + warp);
        if (!s->ready[k]) return pos;
        const int32_t pc = s->pc[k];
        if (pc < 0 || pc >= s->ncode) return pos;
        const Ins *in = &s->code[pc];
        if (in->kind == K_NONE) return pos;
        if (s->count[k] + 1 > s->budget) return pos;
        const uint64_t ws = f[18] * (uint64_t)s->wpb + warp; /* warp slot = block slot x wpb + warp */
        if (ws >= (uint64_t)s->busy_stride) return pos;
        const int64_t key = (int64_t)sm * s->busy_stride + (int64_t)ws;
        if (s->busy[key]) return pos; /* a memory board holds traffic of this warp slot */
        if (s->npend[key] && in->kind != K_STSH) return pos; /* stray writes: the Python path reports them */
        const int global = in->kind == K_LDG || in->kind == K_STG;
        if (s->ngq[key] && !global) return pos; /* stray transactions: the Python path reports them */
        const uint32_t mask = s->mask[k];
        const uint32_t *regs = s->regs[k];
        uint32_t res[MAXW], addrs[MAXW], sdata[MAXW];
        int wr = 0, passes = -1, ntx = -1;
        int32_t npc = pc + 1;
        uint32_t taken = 0;
        switch (in->kind) {
        case K_ALU:
            if (in->op != A_NOP) {
                wr = 1;
                for (int l = 0; l < W; l++) {
                    if (!(mask >> l & 1)) continue;
                    uint32_t a = in->a == OPND_IMM ? in->imm : regs[in->a * W + l];
                    uint32_t b = in->b == OPND_IMM ? in->imm : in->b == OPND_NONE ? 0 : regs[in->b * W + l];
                    uint32_t c = in->c == OPND_NONE ? 0 : regs[in->c * W + l];
                    res[l] = alu(in->op, a, b, c);
                }
            }
            break;
        case K_LDS:
            if (in->a >= s->nparams_limit) return pos; /* BAD_PARAM: the model reports it */
            wr = 1;
            for (int l = 0; l < W; l++) res[l] = s->sregs[k][in->a * W + l];
            break;
        case K_LDSH:
        case K_LDC: {
            const uint32_t *mem = in->kind == K_LDSH ? s->shared[k] : s->consts;
            const int64_t size = in->kind == K_LDSH ? s->shared_len[k] : s->nconsts;
            for (int l = 0; l < W; l++) {
                addrs[l] = regs[in->a * W + l] + in->imm;
                if ((mask >> l & 1) && (int64_t)addrs[l] >= size) return pos; /* out of range */
            }
            wr = 1;
            for (int l = 0; l < W; l++)
                if (mask >> l & 1) res[l] = mem[addrs[l]];
            if (in->kind == K_LDSH) passes = passes_of(s, addrs, mask);
            break;
        }
        case K_STSH: { /* spec/model.py _store (shared) + SharedMemoryScoreboard.check */
            const int64_t size = s->shared_len[k];
            for (int l = 0; l < W; l++) {
                addrs[l] = regs[in->a * W + l] + in->imm;
                sdata[l] = regs[in->c * W + l];
                if ((mask >> l & 1) && (int64_t)addrs[l] >= size) return pos; /* out of range */
            }
            passes = passes_of(s, addrs, mask);
            /* expected bank writes: per row, one per distinct address, the highest active lane's data,
               at slot * sh_stride + address (SharedMemoryScoreboard.expected_writes) */
            uint64_t want[MAXW], got[SMAX];
            int nw = 0;
            const uint64_t base = f[18] * (uint64_t)s->sh_stride;
            for (int lo = 0; lo < W; lo += s->num_lanes) {
                const int row0 = nw;
                for (int l = lo; l < lo + s->num_lanes && l < W; l++) {
                    if (!(mask >> l & 1)) continue;
                    const uint64_t pa = base + addrs[l];
                    if (pa > 0xFFFFFFFFu) return pos;
                    int j = row0;
                    while (j < nw && want[j] >> 32 != pa) j++;
                    want[j] = pa << 32 | sdata[l];
                    if (j == nw) nw++;
                }
            }
            const int ng = s->npend[key];
            if (ng != nw || ng > SMAX) return pos;
            if (s->plant != 3) {
                const uint32_t *e = s->pend + key * s->pend_cap * 2;
                for (int i = 0; i < ng; i++) got[i] = (uint64_t)e[2 * i] << 32 | e[2 * i + 1];
                qsort(got, (size_t)ng, sizeof got[0], cmp_u64);
                qsort(want, (size_t)nw, sizeof want[0], cmp_u64);
                if (memcmp(got, want, sizeof got[0] * (size_t)ng)) return pos;
            }
            break;
        }
        case K_LDG:
        case K_STG: { /* spec/model.py _load/_store (global), coalesce + CoalescingScoreboard.check */
            if (!s->qp_on) return pos;
            const int seg = s->seg_words, store = in->kind == K_STG;
            for (int l = 0; l < W; l++) {
                addrs[l] = regs[in->a * W + l] + in->imm;
                if (store) sdata[l] = regs[in->c * W + l];
                if ((mask >> l & 1) && (int64_t)addrs[l] >= s->gmem_len) return pos; /* out of range */
            }
            /* the transactions: one per distinct segment, in the order of its lowest active lane;
               a store's words carry the highest lane's data */
            uint32_t tb[MAXW], tm[MAXW], td[MAXW][SEGMAX];
            int n = 0;
            for (int l = 0; l < W; l++) {
                if (!(mask >> l & 1)) continue;
                const uint32_t a = addrs[l], base = a - a % (uint32_t)seg;
                int j = 0;
                while (j < n && tb[j] != base) j++;
                if (j == n) {
                    tb[n] = base, tm[n] = 0;
                    if (store) memset(td[n], 0, sizeof td[n]);
                    n++;
                }
                tm[j] |= 1u << (a - base);
                if (store) td[j][a - base] = sdata[l];
            }
            if (s->ngq[key] != n) return pos;
            const uint32_t *e = s->gq + key * s->gq_cap * (GQ_HDR + seg);
            for (int j = 0; j < n; j++, e += GQ_HDR + seg) {
                if (e[0] != tb[j] || e[1] != tm[j] || e[2] != (uint32_t)store) return pos;
                if (store && s->plant != 5)
                    for (int i = 0; i < seg; i++)
                        if (tm[j] >> i & 1 && e[GQ_HDR + i] != td[j][i]) return pos;
            }
            ntx = n;
            if (!store) {
                wr = 1;
                for (int l = 0; l < W; l++)
                    if (mask >> l & 1) res[l] = s->gmem[addrs[l]];
            }
            break;
        }
        case K_BAR: /* spec/model.py step, "bar": every live thread active, else BARRIER_DIVERGENCE */
            if (mask != s->live[k]) return pos;
            break;
        case K_BRA:
            npc = in->target;
            break;
        case K_BEQ:
        case K_BNE: /* the lanes taking it; spec/warp.py _branch below */
            for (int l = 0; l < W; l++) {
                int nz = regs[in->a * W + l] != 0;
                if ((mask >> l & 1) && (in->kind == K_BNE ? nz : !nz)) taken |= 1u << l;
            }
            break;
        case K_SSY:
        case K_EXIT:
            break;
        default:
            return pos;
        }
        /* next pc, divergence stack, reconvergence (spec/warp.py control, _branch, _reconverge), on a
           copy of the warp's stack */
        uint32_t stk[64 * 3];
        int d = s->sdepth[k], pushes = 0, pops = 0, merged = 0, divergent = 0, merged_at = -1;
        uint32_t merged_lanes = 0;
        uint32_t m = mask;
        uint32_t exited = s->exited[k];
        int done = 0; /* an EXIT that finishes the warp (spec/warp.py control "exit") */
        int last = 0; /* ... and its block (spec/model.py step: Block.done) */
        if (in->kind == K_EXIT) {
            exited |= mask, m = 0; /* (npc = pc + 1) */
            if (!(s->valid[k] & ~exited)) {
                done = 1, d = 0; /* the stack is discarded, not popped */
                const int b0 = (int)block * s->wpb;
                last = 1;
                for (int j = b0; j < b0 + s->wpb; j++) last &= j == k || s->wstate[j] == 2;
            }
        }
        if (d) memcpy(stk, s->stack + (int64_t)k * s->depth_limit * 3, sizeof(uint32_t) * 3 * (size_t)d);
        if (in->kind == K_SSY) {
            if (d >= s->depth_limit) return pos; /* STACK_OVERFLOW: the model reports it */
            stk[3 * d] = 0, stk[3 * d + 1] = (uint32_t)in->target, stk[3 * d + 2] = mask;
            d++, pushes++;
        } else if (in->kind == K_BEQ || in->kind == K_BNE) {
            const uint32_t not_taken = mask & ~taken;
            const int32_t next = pc + 1;
            if (in->target == next || !not_taken) npc = in->target;
            else if (!taken) npc = next;
            else {
                int r = d - 1;
                while (r >= 0 && stk[3 * r] != 0) r--;
                if (r < 0) return pos; /* DIVERGENT_WITHOUT_SSY: the model reports it */
                const int32_t rpc = (int32_t)stk[3 * r + 1];
                divergent = 1;
                if (in->target == rpc) m = not_taken, npc = next;
                else if (next == rpc) m = taken, npc = in->target;
                else {
                    if (d && stk[3 * (d - 1)] == 1 && stk[3 * (d - 1) + 1] == (uint32_t)next) {
                        stk[3 * (d - 1) + 2] |= not_taken;
                        merged++, merged_at = d - 1, merged_lanes = not_taken;
                    } else {
                        if (d >= s->depth_limit) return pos; /* STACK_OVERFLOW */
                        stk[3 * d] = 1, stk[3 * d + 1] = (uint32_t)next, stk[3 * d + 2] = not_taken;
                        d++, pushes++;
                    }
                    m = taken, npc = in->target;
                }
            }
        }
        const int pushed_depth = d;
        if (!done && (d || !m)) {
            while (d) {
                if (m) {
                    int r = d - 1;
                    while (r >= 0 && stk[3 * r] != 0) r--;
                    if (r < 0 || npc != (int32_t)stk[3 * r + 1]) break;
                }
                d--;
                npc = (int32_t)stk[3 * d + 1], m = stk[3 * d + 2] & ~exited;
                pops++;
            }
            if (!m) return pos; /* the model's invariant: left to it */
        }
        /* the record: project(model) == RTL, field by field (docs/isa.md section 10) */
        if (f[2] != (uint64_t)pc || f[3] != in->word || f[4] != mask || f[5] != (uint64_t)wr) return pos;
        if (wr) {
            if (f[6] != (uint64_t)in->rd) return pos;
            for (int l = 0; l < W; l++) {
                if (!(mask >> l & 1) || (s->plant == 2 && l == 0)) continue;
                const char *d = vals + 8 * (W - 1 - l);
                uint32_t v = 0;
                for (int j = 0; j < 8; j++) {
                    int h = hexval((unsigned char)d[j]);
                    if (h < 0) return pos;
                    v = (v << 4) | (uint32_t)h;
                }
                if (v != res[l]) return pos;
            }
        }
        if (f[10] != (uint64_t)pushes || f[11] != (uint64_t)pops || f[12] != (uint64_t)merged) return pos;
        /* a finished warp's next pc, mask and stack are the RTL's (spec/retire_record.py project) */
        if (!done && (f[8] != (uint64_t)npc || f[9] != m || f[13] != (uint64_t)d)) return pos;
        if (!done && d && s->plant != 9 &&
            (f[19] != stk[3 * (d - 1) + 1] || f[20] != stk[3 * (d - 1) + 2] || f[21] != stk[3 * (d - 1)]))
            return pos;
        if (passes >= 0 && f[14] != (uint64_t)passes) return pos;
        if (ntx >= 0 && f[15] != (uint64_t)ntx) return pos;
        if (f[16] != (uint64_t)(in->kind == K_BAR) || f[17] != (uint64_t)done) return pos;
        /* the block finished: its region of the SM's shared memory as the shared board's mirror has it
           must equal the model's (SharedMemoryScoreboard.check_block; the mirror is the board's own) */
        const int64_t shn = s->shared_len[k];
        if (last && shn && s->plant != 11) {
            const uint64_t base = f[18] * (uint64_t)s->sh_stride;
            if (base + (uint64_t)shn > (uint64_t)s->mirror_len ||
                memcmp(s->mirror[sm] + base, s->shared[k], sizeof(uint32_t) * (size_t)shn))
                return pos;
        }
        /* equal: commit what Model.step, the boards and coverage do */
        if (wr) {
            uint32_t *row = s->regs[k] + in->rd * W;
            for (int l = 0; l < W; l++)
                if (mask >> l & 1) row[l] = res[l] + (uint32_t)(s->plant == 1 && in->op == A_ADD && in->kind == K_ALU);
            if (s->plant == 6 && in->kind == K_LDG && mask & 1) row[0] = s->gmem[0];
        }
        if (in->kind == K_STG) {
            for (int l = 0; l < W; l++) /* the highest lane wins */
                if (mask >> l & 1) s->gmem[addrs[l]] = sdata[l];
        }
        if (global) {
            s->counters[27] += 1;        /* global accesses (model counters, coalescing board) */
            s->counters[28] += ntx;      /* ... and transactions */
            s->ngq_total -= s->ngq[key];
            s->ngq[key] = 0;
        }
        if (in->kind == K_STSH) {
            uint32_t *mem = s->shared[k];
            for (int l = 0; l < W; l++) /* the highest lane wins (docs/isa.md 3.3) */
                if (mask >> l & 1) mem[addrs[l]] = sdata[l];
            s->counters[22] += 1;             /* the shared board's stores */
            s->counters[23] += s->npend[key]; /* ... and bank writes */
            s->npend_total -= s->npend[key];
            s->npend[key] = 0;
        }
        if (in->kind == K_BAR) { /* the warp waits; spec/model.py _barrier_check */
            s->wstate[k] = 1;
            s->ready[k] = 0;
            s->counters[25] += 1; /* barrier_arrivals */
            const int released = barrier_check(s, block, s->plant == 4);
            uint32_t *e = s->arr + s->narr * 3;
            e[0] = (uint32_t)block, e[1] = (uint32_t)warp, e[2] = (uint32_t)released;
            s->narr++;
        }
        if (in->kind == K_EXIT) { /* spec/warp.py control "exit"; spec/model.py step: DONE, _barrier_check */
            if (s->plant != 10 || !done) s->exited[k] = exited;
            s->live[k] = s->valid[k] & ~exited;
            s->counters[53] += 1; /* EXITs checked here */
            if (!done) {
                s->counters[52] += 1; /* coverage: gpu.div.shape partial_exit */
            } else {
                s->wstate[k] = 2;
                s->ready[k] = 0;
                if (last) { /* the block is done (no warp of it waits: nothing to release) */
                    s->counters[54] += shn > 0; /* the shared board's blocks_checked */
                    s->counters[55] += shn;     /* ... and words_checked */
                    int32_t *e = s->bdone + s->nbdone * 2;
                    e[0] = (int32_t)block, e[1] = sm;
                    s->nbdone++;
                } else if (s->plant != 12 && barrier_check(s, block, 0)) {
                    /* the warp's leaving released the others waiting at the barrier (done warps count as
                       arrived, docs/isa.md 5): coverage's arrival order, without an arrival of its own */
                    uint32_t *e = s->arr + s->narr * 3;
                    e[0] = (uint32_t)block, e[1] = (uint32_t)warp, e[2] = 2;
                    s->narr++;
                }
            }
        }
        s->pc[k] = npc;
        s->mask[k] = m;
        if (s->plant == 8 && merged_at >= 0 && merged_at < d) stk[3 * merged_at + 2] &= ~merged_lanes;
        if (d || s->sdepth[k]) {
            memcpy(s->stack + (int64_t)k * s->depth_limit * 3, stk, sizeof(uint32_t) * 3 * (size_t)d);
            s->sdepth[k] = d;
        }
        s->count[k] += 1;
        const int64_t nth = __builtin_popcount(mask);
        int64_t *c = s->counters; /* layout: tb/fastcheck/__init__.py CNT_* */
        c[0] += 1;              /* retires (model.retires, warp_instrs, compared by every board) */
        c[1] += nth;            /* thread_instrs */
        if (wr) c[2] += nth;    /* retire board: lanes_compared */
        if (in->kind == K_BEQ || in->kind == K_BNE) { /* coverage: gpu.div.shape (GpuCoverage._divergence) */
            if (m == mask || !m) c[merged ? 43 : 21] += 1; /* merge / uniform_branch */
            else {
                c[40] += in->target <= pc;      /* loop */
                c[41] += mask != s->live[k];    /* nested */
                c[merged ? 43 : pushes ? 42 : 44] += 1; /* merge / if_else / if_only */
            }
        }
        if (pushes || pops || merged || d) {
            c[45] += pushes, c[46] += pops, c[47] += merged; /* stack events (model counters, divergence board) */
            c[48] += d > 0;                                /* divergence board: tops */
            if (pushes && pushed_depth > c[49]) c[49] = pushed_depth; /* max_stack_depth */
        }
        c[50] += divergent;                                /* divergent_branches */
        c[5 + in->unit] += 1;   /* warp_by_class[unit] */
        c[13 + in->unit] += nth; /* thread_by_class[unit] */
        if (in->kind == K_LDSH || in->kind == K_STSH || (global && ntx > 0)) {
            if (!global) {
                c[3] += 1;      /* shared_accesses (model counters; coalescing board) */
                c[4] += passes; /* shared_passes */
            }
            uint32_t *e = s->shl + s->nshl * (W + 2); /* coverage's memory access: store, global, ntx */
            e[0] = (uint32_t)(in->kind == K_STSH || in->kind == K_STG) | (uint32_t)global << 1 |
                   (uint32_t)(global ? ntx : 0) << 2;
            e[1] = mask;
            memcpy(e + 2, addrs, sizeof(uint32_t) * (size_t)W);
            s->nshl++;
        }
        /* coverage: (pc, mask, valid, switch) */
        uint32_t sw = 3;
        if (s->last_b[sm] >= 0)
            sw = (s->last_b[sm] == (int32_t)block && s->last_w[sm] == (int32_t)warp) ? 0
                 : s->last_b[sm] == (int32_t)block ? 1 : 2;
        s->last_b[sm] = (int32_t)block;
        s->last_w[sm] = (int32_t)warp;
        uint32_t *e = s->cov + s->ncov * 4;
        e[0] = (uint32_t)pc, e[1] = mask, e[2] = s->valid[k], e[3] = sw | (uint32_t)d << 2;
        s->ncov++;
        /* the retire board's history of this warp */
        uint32_t *h = s->hist + ((int64_t)k * s->hist_len + s->hpos[k] % s->hist_len) * 2;
        h[0] = (uint32_t)pc, h[1] = mask;
        s->hpos[k]++;
        if (!s->dirty[k]) s->dirty[k] = 1, s->dirty_list[s->ndirty++] = k;
        s->last_cycle = (int64_t)cycle;
        s->last_sm = sm;
        s->last_k = k;
        pos = next;
    }
    return pos;
}

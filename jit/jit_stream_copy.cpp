#include "jit_stream_copy.hpp"

#include <cstddef>

namespace xinterp {

using namespace Xbyak;

// ymm on every tier: the write-combining buffers fill 64-byte lines from 32-byte NT stores as
// well as from 64-byte ones, and the copy then needs no opmask or EVEX spelling.
jit_stream_copy::jit_stream_copy(int64_t bytes, bool nt) : jit_io(1024, 8), bytes_(bytes), nt_(nt) {
    if (bytes < 1) throw error(status::runtime_error, "jit: stream copy of an empty row");
}

// NT stores write whole 64-byte lines only: a line that mixes NT and plain stores, or that the
// write-combining buffer evicts half full, goes to DRAM as a partial write (a read-modify-write
// there), and a plain store to a line still in a WC buffer flushes that buffer. So the partial
// lines at either end of the region (dst has any alignment; consecutive calls share them) take
// plain stores, and the full lines between them NT stores.
//
// A call copies `rows` repeats of the row end to end, as one region: the lines inside it that
// span two repeats are whole lines too, read from src at the row offset q = (region offset) mod
// bytes_, which is why src then holds the row's first 64 bytes again after its end (a line read
// at q < bytes_ ends before bytes_ + 64). Rows of 6.4x H upsampling (520-byte f32 NCX rows,
// eight lines with two partial) had gone out as one call each, their shared lines plain.
void jit_stream_copy::generate() {
    const Reg64 reg_args = rdi, reg_src = rsi, reg_dst = rdx, reg_n = rcx, reg_len = rax, reg_t = r8, reg_q = r11;
    const Ymm va(0), vb(1);
    mov(reg_src, ptr[reg_args + static_cast<int>(offsetof(jit_copy_args, src))]);
    mov(reg_dst, ptr[reg_args + static_cast<int>(offsetof(jit_copy_args, dst))]);
    mov(reg_t, bytes_);  // 64-bit immediate: rows may be large
    imul(reg_t, ptr[reg_args + static_cast<int>(offsetof(jit_copy_args, rows))]);  // the region's bytes
    const Reg64 reg_row = reg_args;  // the args are read: the row's bytes from here on
    mov(reg_row, bytes_);

    // Copies reg_len (0..63) bytes from reg_src + reg_q to reg_dst with plain stores, as two
    // overlapping moves of the largest width that fits (the standard small-memcpy shape), and
    // advances reg_dst and reg_q by reg_len. Widths 32 and 16 move through ymm/xmm 0-1, the
    // narrower ones through r9/r10 (free here).
    auto copy_small = [&]() {
        Label l_done;
        add(reg_q, reg_src);  // src + q while it copies (an address takes two registers)
        for (const int width : {32, 16, 8, 4, 2}) {
            Label l_narrower;
            cmp(reg_len, width);
            jb(l_narrower, T_NEAR);
            const Address first_src = ptr[reg_q], last_src = ptr[reg_q + reg_len - width];
            const Address first_dst = ptr[reg_dst], last_dst = ptr[reg_dst + reg_len - width];
            if (width >= 16) {
                const Xmm a = width == 32 ? Xmm(va) : Xmm(0), b = width == 32 ? Xmm(vb) : Xmm(1);
                vmovdqu(a, first_src);
                vmovdqu(b, last_src);
                vmovdqu(first_dst, a);
                vmovdqu(last_dst, b);
            } else {
                const Reg a = Reg64(r9).changeBit(width * 8), b = Reg64(r10).changeBit(width * 8);
                mov(a, first_src);
                mov(b, last_src);
                mov(first_dst, a);
                mov(last_dst, b);
            }
            jmp(l_done, T_NEAR);
            L(l_narrower);
        }
        test(reg_len, reg_len);  // 0 or 1 byte left
        jz(l_done, T_NEAR);
        mov(r9b, byte[reg_q]);
        mov(byte[reg_dst], r9b);
        L(l_done);
        sub(reg_q, reg_src);
        add(reg_q, reg_len);
        add(reg_dst, reg_len);
    };

    // head = min((-dst) & 63, region); full lines n = (region - head) / 64; the rest is the
    // tail. The head is under 64 bytes, so within the first repeat of a row of 64 bytes or
    // more (one repeat: within the region): q = head after it.
    xor_(reg_q, reg_q);
    mov(reg_len, reg_dst);
    neg(reg_len);
    and_(reg_len, 63);
    cmp(reg_len, reg_t);
    cmovg(reg_len, reg_t);
    sub(reg_t, reg_len);  // bytes after the head
    copy_small();
    mov(reg_n, reg_t);
    shr(reg_n, 6);
    and_(reg_t, 63);
    // The lines go in segments, each up to the line that passes the row's end (a wrap of q per
    // repeat, not per line: a per-line wrap made q a three-cycle chain a line, and 1612-byte
    // rows copied two at a time 1.09x slower than one at a time). A segment's count k =
    // ceil((bytes_ - q) / 64) >= 1, at most the lines left; a repeat's lines never pass its
    // end, so then q + 64k <= bytes_ and no wrap follows.
    Label l_segment, l_line, l_tail;
    L(l_segment);
    test(reg_n, reg_n);
    jz(l_tail, T_NEAR);
    mov(reg_len, reg_row);
    sub(reg_len, reg_q);
    add(reg_len, 63);
    shr(reg_len, 6);
    cmp(reg_len, reg_n);
    cmova(reg_len, reg_n);
    sub(reg_n, reg_len);
    L(l_line);  // one line per trip
    vmovdqu(va, ptr[reg_src + reg_q]);
    vmovdqu(vb, ptr[reg_src + reg_q + 32]);
    if (nt_) {
        vmovntdq(ptr[reg_dst], va);
        vmovntdq(ptr[reg_dst + 32], vb);
    } else {
        vmovdqu(ptr[reg_dst], va);
        vmovdqu(ptr[reg_dst + 32], vb);
    }
    add(reg_dst, 64);
    add(reg_q, 64);
    dec(reg_len);
    jnz(l_line, T_NEAR);
    cmp(reg_q, reg_row);  // past the row's end: the same bytes from the repeat's start
    jb(l_segment, T_NEAR);
    sub(reg_q, reg_row);
    jmp(l_segment, T_NEAR);
    L(l_tail);
    mov(reg_len, reg_t);
    copy_small();
    vzeroupper();
    ret();
    finish_code();
}

}  // namespace xinterp

/* Forwarders for the BLAS and CBLAS routines shimblas does not implement (forward_symbols.inc).
 * Each is a tail jump through a slot, so any signature and any return convention passes through
 * untouched. An empty slot (first call) takes the slow path, which saves every argument
 * register, asks shim_forward_resolve for the target, restores them and jumps. */

    .hidden shim_forward_resolve

    .text
    .p2align 4
    .type shim_forward_slow, @function
shim_forward_slow:
    /* entry: %r10 = slot, %r11 = name; the stack is as the caller left it for the forwarded
     * routine (rsp = 8 mod 16), stack-passed arguments above it */
    pushq %rbp
    movq %rsp, %rbp
    subq $192, %rsp
    movq %rdi, 0(%rsp)
    movq %rsi, 8(%rsp)
    movq %rdx, 16(%rsp)
    movq %rcx, 24(%rsp)
    movq %r8, 32(%rsp)
    movq %r9, 40(%rsp)
    movq %rax, 48(%rsp)
    movaps %xmm0, 64(%rsp)
    movaps %xmm1, 80(%rsp)
    movaps %xmm2, 96(%rsp)
    movaps %xmm3, 112(%rsp)
    movaps %xmm4, 128(%rsp)
    movaps %xmm5, 144(%rsp)
    movaps %xmm6, 160(%rsp)
    movaps %xmm7, 176(%rsp)
    movq %r10, %rdi
    movq %r11, %rsi
    call shim_forward_resolve
    movq %rax, %r11
    movq 0(%rsp), %rdi
    movq 8(%rsp), %rsi
    movq 16(%rsp), %rdx
    movq 24(%rsp), %rcx
    movq 32(%rsp), %r8
    movq 40(%rsp), %r9
    movq 48(%rsp), %rax
    movaps 64(%rsp), %xmm0
    movaps 80(%rsp), %xmm1
    movaps 96(%rsp), %xmm2
    movaps 112(%rsp), %xmm3
    movaps 128(%rsp), %xmm4
    movaps 144(%rsp), %xmm5
    movaps 160(%rsp), %xmm6
    movaps 176(%rsp), %xmm7
    leave
    jmp *%r11
    .size shim_forward_slow, .-shim_forward_slow

.macro FORWARD name
    .section .rodata.str1.1, "aMS", @progbits, 1
.Lname_\name:
    .asciz "\name"
    .bss
    .p2align 3
.Lslot_\name:
    .zero 8
    .text
    .p2align 4
    .globl \name
    .type \name, @function
\name:
    movq .Lslot_\name(%rip), %r11
    testq %r11, %r11
    jz 1f
    jmp *%r11
1:  leaq .Lslot_\name(%rip), %r10
    leaq .Lname_\name(%rip), %r11
    jmp shim_forward_slow
    .size \name, .-\name
.endm

#define SHIM_FORWARD(name) FORWARD name
#include "forward_symbols.inc"

    .section .note.GNU-stack, "", @progbits

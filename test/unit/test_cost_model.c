/* The auto-mode decision with synthetic cost models (no GPU needed): the predictions respond to
 * size, to where the operands live and to how fast each side is, and the GPU is chosen only when
 * it is clearly faster. */
#include <stdio.h>
#include <string.h>

#include "cost_cache.h"
#include "cost_model.h"

static int failures, cases;

static void expect(const char *what, int ok)
{
    cases++;
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static shim_gemm_problem square(int n)
{
    static float dummy[1];
    return (shim_gemm_problem){0, 0, n, n, n, 1.0f, dummy, n, dummy, n, 0.0f, dummy, n, {0, 0}};
}

static int gemm_on_gpu(const shim_cost_model *m, shim_gemm_problem p, shim_staging s, double *cpu, double *gpu)
{
    shim_predict_sgemm(m, &p, s, 1, cpu, gpu);
    return shim_prefer_gpu(*cpu, *gpu);
}

int main(void)
{
    /* roughly the project's GPU host: H200 over PCIe 5, OpenBLAS with AVX-512 on 16 cores */
    const shim_cost_model fast = {.h2d_gbps = 55,
                                  .d2h_gbps = 55,
                                  .pack_gbps = 50,
                                  .gpu_sgemm_gflops = 45000,
                                  .gpu_sgemv_gbps = 3800,
                                  .gpu_call_ms = 0.05,
                                  .cpu_sgemm_gflops = 1500,
                                  .cpu_sgemm_call_ms = 0.01,
                                  .cpu_sgemv_gbps = 150,
                                  .cpu_sgemv_call_ms = 0.002};
    shim_cost_model slow_cpu = fast;
    slow_cpu.cpu_sgemm_gflops = 5;
    slow_cpu.cpu_sgemv_gbps = 8;
    const shim_staging host = {1, 1, 1}, device = {0, 0, 0};
    double cpu, gpu;
    char what[200];

    /* several GPUs: a spread call is predicted faster, never better than perfect sharing; calls with
     * one row band or on device data are predicted as on one GPU; and a shape one GPU does not win
     * (a GPU no faster than the CPU) goes to two */
    {
        double one, two, cpu2;
        shim_gemm_problem big = square(16384);
        shim_predict_sgemm(&fast, &big, host, 1, &cpu, &one);
        shim_predict_sgemm(&fast, &big, host, 2, &cpu2, &two);
        snprintf(what, sizeof what, "16384^3 on two GPUs predicted between half and all of one (%.1f vs %.1f ms)", two,
                 one);
        expect(what, two < one && two > one / 2);
        shim_gemm_problem small = square(2048);
        shim_predict_sgemm(&fast, &small, host, 1, &cpu, &one);
        shim_predict_sgemm(&fast, &small, host, 2, &cpu, &two);
        expect("2048^3 (one row band) predicted the same on two GPUs", one == two);
        shim_predict_sgemm(&fast, &big, device, 1, &cpu, &one);
        shim_predict_sgemm(&fast, &big, device, 2, &cpu, &two);
        expect("device operands predicted the same with two GPUs listed", one == two);
        shim_cost_model even = fast;
        even.gpu_sgemm_gflops = even.cpu_sgemm_gflops;
        shim_gemm_problem mid = square(8192);
        shim_predict_sgemm(&even, &mid, host, 1, &cpu, &one);
        int on_one = shim_prefer_gpu(cpu, one);
        shim_predict_sgemm(&even, &mid, host, 2, &cpu, &two);
        snprintf(what, sizeof what, "a GPU as fast as the CPU: 8192^3 stays on the CPU with one (%.0f vs %.0f ms), goes to two (%.0f ms)",
                 one, cpu, two);
        expect(what, !on_one && shim_prefer_gpu(cpu, two));
    }

    expect("8192^3 on host data goes to the GPU", gemm_on_gpu(&fast, square(8192), host, &cpu, &gpu));
    snprintf(what, sizeof what, "8192^3 host prediction within the 30 ms target (%.1f ms)", gpu);
    expect(what, gpu > 20 && gpu < 30);
    expect("4096^3 on host data goes to the GPU", gemm_on_gpu(&fast, square(4096), host, &cpu, &gpu));
    expect("256^3 stays on the CPU", !gemm_on_gpu(&fast, square(256), host, &cpu, &gpu));
    expect("64^3 stays on the CPU", !gemm_on_gpu(&fast, square(64), host, &cpu, &gpu));
    double host_ms, dev_ms;
    gemm_on_gpu(&fast, square(2048), host, &cpu, &host_ms);
    gemm_on_gpu(&fast, square(2048), device, &cpu, &dev_ms);
    expect("device-resident operands predict faster than staged ones", dev_ms < host_ms);
    double small_gpu, big_gpu;
    gemm_on_gpu(&fast, square(1024), host, &cpu, &small_gpu);
    gemm_on_gpu(&fast, square(2048), host, &cpu, &big_gpu);
    expect("predictions grow with size", big_gpu > small_gpu && small_gpu > fast.gpu_call_ms);
    expect("with a slow CPU BLAS, 512^3 goes to the GPU", gemm_on_gpu(&slow_cpu, square(512), host, &cpu, &gpu));
    shim_gemm_problem beta = square(4096);
    beta.beta = 1.0f;
    double with_c;
    gemm_on_gpu(&fast, beta, host, &cpu, &with_c);
    gemm_on_gpu(&fast, square(4096), host, &cpu, &gpu);
    expect("reading C costs its upload", with_c >= gpu);

    static float dummy[1];
    shim_gemv_problem v = {1, 16384, 16384, 1.0f, dummy, 16384, dummy, 1, 0.0f, dummy, 1, {0, 0}};
    shim_predict_sgemv(&fast, &v, host, &cpu, &gpu);
    expect("host sgemv stays on a fast CPU (the bus is slower than its memory)", !shim_prefer_gpu(cpu, gpu));
    shim_predict_sgemv(&slow_cpu, &v, host, &cpu, &gpu);
    expect("host sgemv goes to the GPU when the CPU BLAS is slow", shim_prefer_gpu(cpu, gpu));
    shim_predict_sgemv(&fast, &v, device, &cpu, &gpu);
    snprintf(what, sizeof what, "device sgemv is predicted at the device's bandwidth (%.3f ms)", gpu);
    expect(what, gpu < 0.4);

    expect("equal predictions keep the CPU", !shim_prefer_gpu(1.0, 1.0));
    expect("a clearly faster GPU wins", shim_prefer_gpu(1.0, 0.5));
    shim_gemm_problem tiny = square(32);
    expect("tiny sgemm is not worth measuring", !shim_sgemm_worth_modelling(&tiny));
    shim_gemm_problem mid = square(512);
    expect("512^3 is worth measuring", shim_sgemm_worth_modelling(&mid));
    shim_gemv_problem small_v = {0, 100, 100, 1.0f, dummy, 100, dummy, 1, 0.0f, dummy, 1, {0, 0}};
    expect("100x100 sgemv is not worth measuring", !shim_sgemv_worth_modelling(&small_v));
    expect("16384^2 sgemv is worth measuring", shim_sgemv_worth_modelling(&v));

    /* learning from measured calls: the first call of a class is ignored, later ones scale it */
    shim_feedback_reset();
    unsigned key = shim_feedback_key(1, 128, 128, 65536), other = shim_feedback_key(1, 4096, 4096, 4096);
    expect("shape classes differ", key != other && key != 0);
    expect("nearby shapes share a class", key == shim_feedback_key(1, 130, 129, 70000));
    double c = 1.0, g = 2.0;
    shim_feedback_record(key, 0, 1.0, 4.0);
    shim_feedback_apply(key, &c, &g);
    expect("the first call is not learned from", c == 1.0 && g == 2.0);
    shim_feedback_record(key, 0, 1.0, 4.0);
    c = 1.0, g = 2.0;
    shim_feedback_apply(key, &c, &g);
    expect("a CPU four times slower than predicted is seen as such", c == 4.0 && g == 2.0);
    expect("and the decision flips to the GPU", shim_prefer_gpu(c, g));
    c = 1.0, g = 2.0;
    shim_feedback_apply(other, &c, &g);
    expect("other classes are untouched", c == 1.0 && g == 2.0);
    shim_feedback_record(key, 0, 1.0, 1000.0);
    c = 1.0;
    shim_feedback_apply(key, &c, &g);
    expect("one wild measurement moves the factor only so far", c <= 8.0);

    /* a side judged slow is tried again once its estimate has faded back toward the model */
    shim_feedback_reset();
    shim_feedback_record(other, 1, 1.0, 3.0);
    shim_feedback_record(other, 1, 1.0, 3.0); /* GPU measured 3x its prediction */
    int calls_until_retry = 0;
    for (;;) {
        c = 1.0, g = 0.5; /* the model alone: the GPU twice as fast */
        shim_feedback_apply(other, &c, &g);
        if (shim_prefer_gpu(c, g) || calls_until_retry > 1000)
            break;
        shim_feedback_record(other, 0, 1.0, 1.0); /* the CPU runs, as predicted */
        calls_until_retry++;
    }
    expect("after a slow GPU call the CPU serves the next calls", calls_until_retry >= 10);
    expect("and the GPU is tried again within a hundred calls", calls_until_retry <= 100);
    c = 1.0, g = 0.5;
    shim_feedback_apply(other, &c, &g);
    expect("the CPU's own estimate stays as measured", c == 1.0);

    char text[1024];
    shim_cost_model back;
    memset(&back, 0, sizeof back);
    shim_cost_model_format(&fast, text, sizeof text);
    expect("the cache text reads back", shim_cost_model_parse(text, &back) == 0 &&
                                            back.cpu_sgemv_call_ms == fast.cpu_sgemv_call_ms &&
                                            back.gpu_sgemm_gflops == fast.gpu_sgemm_gflops);
    expect("a truncated cache text is refused", shim_cost_model_parse("h2d_gbps 55\n", &back) != 0);

    printf("test_cost_model: %d cases, %d failures\n", cases, failures);
    return failures != 0;
}

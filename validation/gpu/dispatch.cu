// Locus real-GPU check, block dispatch: how long a grid of empty blocks takes, by block count
// and block size (cudaEvent median of 11 launches after a warm-up). The simulator dispatches a
// block to a free slot at no cost; a kernel of very many small blocks (gaussian's Fan2:
// 147,456 blocks of 4x4 threads) measured about 4x slower than simulated, and this separates
// the dispatch cost from the kernel's work. Nothing in Locus reads this file's output yet.
//
// Build: nvcc -O3 -arch=sm_90 -o dispatch dispatch.cu; run: ./dispatch > dispatch.tsv
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void empty(int *sink, int never) {
  if (never == 12345 && threadIdx.x == 0) sink[blockIdx.x] = 1;  // keeps the kernel non-trivial
}

int main() {
  int *sink;
  cudaMalloc(&sink, 4 << 20);
  printf("blocks\tthreads_per_block\tmedian_us\tns_per_block\n");
  const int blocks[] = {1, 1024, 9216, 36864, 147456, 589824};
  const int threads[] = {16, 256};
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int t : threads)
    for (int b : blocks) {
      empty<<<b, t>>>(sink, 0);
      cudaDeviceSynchronize();
      std::vector<float> ms;
      for (int r = 0; r < 11; r++) {
        cudaEventRecord(e0);
        empty<<<b, t>>>(sink, 0);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float x;
        cudaEventElapsedTime(&x, e0, e1);
        ms.push_back(x);
      }
      std::sort(ms.begin(), ms.end());
      double us = ms[5] * 1000.0;
      printf("%d\t%d\t%.2f\t%.3f\n", b, t, us, us * 1000.0 / b);
    }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

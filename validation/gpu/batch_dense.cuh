// Locus real-GPU check, dense batch: Rodinia backprop (bpnn_layerforward_CUDA,
// bpnn_adjust_weights_cuda), gaussian (Fan1, Fan2) and kmeans (kmeansPoint after the
// invert_mapping of kernels.cu), written for this check in the structure of the public
// Rodinia CUDA sources, at the launch geometry and sizes of the Locus models
// (crates/workload/src/bench/rodinia/backprop.rs, dense/ge.rs, dense/km.rs).
// #included by kernels.cu (after Bench and dalloc) under LOCUS_BATCH_DENSE.

#include <cfloat>

// ---------------- Rodinia backprop (backprop.h: HEIGHT = WIDTH = 16, ETA, MOMENTUM) ----------------
#define BP_HEIGHT 16
#define BP_WIDTH 16
#define BP_ETA 0.3      // double literal, as backprop.h's ETA
#define BP_MOMENTUM 0.3 // double literal, as backprop.h's MOMENTUM

__global__ void bpnn_layerforward_CUDA(float *input_cuda, float *output_hidden_cuda, float *input_hidden_cuda,
                                       float *hidden_partial_sum, int in, int hid) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * BP_HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = BP_HEIGHT * by + ty + 1;
  __shared__ float input_node[BP_HEIGHT];
  __shared__ float weight_matrix[BP_HEIGHT][BP_WIDTH];
  if (tx == 0) input_node[ty] = input_cuda[index_in];
  __syncthreads();
  weight_matrix[ty][tx] = input_hidden_cuda[index];
  __syncthreads();
  weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
  __syncthreads();
  for (int i = 1; i <= __log2f(BP_HEIGHT); i++) {
    int power_two = __powf(2, i);
    if (ty % power_two == 0) weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
    __syncthreads();
  }
  input_hidden_cuda[index] = weight_matrix[ty][tx];
  __syncthreads();
  if (tx == 0) hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
}

__global__ void bpnn_adjust_weights_cuda(float *delta, int hid, float *ly, int in, float *w, float *oldw) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * BP_HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = BP_HEIGHT * by + ty + 1;
  int index_x = tx + 1;
  w[index] += ((BP_ETA * delta[index_x] * ly[index_y]) + (BP_MOMENTUM * oldw[index]));
  oldw[index] = ((BP_ETA * delta[index_x] * ly[index_y]) + (BP_MOMENTUM * oldw[index]));
  __syncthreads();
  if (ty == 0 && by == 0) {
    w[index_x] += ((BP_ETA * delta[index_x]) + (BP_MOMENTUM * oldw[index_x]));
    oldw[index_x] = ((BP_ETA * delta[index_x]) + (BP_MOMENTUM * oldw[index_x]));
  }
}

// ---------------- Rodinia gaussian (MAXBLOCKSIZE 512, BLOCK_SIZE_XY 4) ----------------
__global__ void Fan1(float *m_cuda, float *a_cuda, int Size, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
  *(m_cuda + Size * (blockDim.x * blockIdx.x + threadIdx.x + t + 1) + t) =
      *(a_cuda + Size * (blockDim.x * blockIdx.x + threadIdx.x + t + 1) + t) / *(a_cuda + Size * t + t);
}

__global__ void Fan2(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
  if (threadIdx.y + blockIdx.y * blockDim.y >= Size - t) return;
  int xidx = blockIdx.x * blockDim.x + threadIdx.x;
  int yidx = blockIdx.y * blockDim.y + threadIdx.y;
  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
  if (yidx == 0) b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
}

// ---------------- Rodinia kmeans kmeansPoint (invert_mapping is kernels.cu's) ----------------
// Rodinia reads the features through the texture reference `t_features` (tex1Dfetch), which
// CUDA 12 removed: here a texture object over the same linear buffer, passed as one extra
// (last) kernel argument; everything else as kmeans_cuda_kernel.cu (GPU_DELTA_REDUCTION and
// GPU_NEW_CENTER_REDUCTION off, as shipped).
#define KM_ASSUMED_NR_CLUSTERS 32
__constant__ float c_clusters[KM_ASSUMED_NR_CLUSTERS * 34];

__global__ void kmeansPoint(float *features, int nfeatures, int npoints, int nclusters, int *membership,
                            float *clusters, float *block_clusters, int *block_deltas,
                            cudaTextureObject_t t_features) {
  const unsigned int block_id = gridDim.x * blockIdx.y + blockIdx.x;
  const unsigned int point_id = block_id * blockDim.x * blockDim.y + threadIdx.x;
  int index = -1;
  if (point_id < npoints) {
    int i, j;
    float min_dist = FLT_MAX;
    float dist;
    for (i = 0; i < nclusters; i++) {
      int cluster_base_index = i * nfeatures;
      float ans = 0.0;
      for (j = 0; j < nfeatures; j++) {
        int addr = point_id + j * npoints;
        float diff = (tex1Dfetch<float>(t_features, addr) - c_clusters[cluster_base_index + j]);
        ans += diff * diff;
      }
      dist = ans;
      if (dist < min_dist) {
        min_dist = dist;
        index = i;
      }
    }
  }
  if (point_id < npoints) membership[point_id] = index;
}

static cudaTextureObject_t km_tex;

static void add_batch_dense(std::vector<Bench> &v, float **p) {
  {
    // backprop: in = 233008 (model default), grid (1, in/16), 16x16 threads, hid = 16
    const int in = 233008, hid = 16, blocks = in / 16;
    const size_t nw = (size_t)(in + 1) * (hid + 1);
    v.push_back({"backprop", "", "bpnn_layerforward_CUDA,bpnn_adjust_weights_cuda",
                 [=] {
                   p[0] = dalloc(in + 1, 1);             // input_cuda
                   p[1] = dalloc(hid + 1, 2);            // output_hidden_cuda (unused by the kernel)
                   p[2] = dalloc(nw, 3);                 // input_hidden_cuda
                   p[3] = dalloc((size_t)blocks * hid, 4); // hidden_partial_sum
                   p[4] = dalloc(hid + 1, 5);            // hidden_delta_cuda
                   p[5] = dalloc(nw, 6);                 // input_prev_weights_cuda
                 },
                 [=] {
                   dim3 grid(1, blocks), threads(16, 16);
                   bpnn_layerforward_CUDA<<<grid, threads>>>(p[0], p[1], p[2], p[3], in, hid);
                   bpnn_adjust_weights_cuda<<<grid, threads>>>(p[4], hid, p[0], in, p[2], p[5]);
                 }});
  }
  {
    // ge: Size = 1536, steps = 2 (model default): Fan1, Fan2 for t = 0, 1
    const int n = 1536, steps = 2;
    v.push_back({"ge", "", "Fan1,Fan2,Fan1,Fan2",
                 [=] {
                   p[0] = dalloc((size_t)n * n, 1); // m_cuda
                   p[1] = dalloc((size_t)n * n, 2); // a_cuda
                   p[2] = dalloc(n, 3);             // b_cuda
                 },
                 [=] {
                   dim3 dimBlock(512), dimGrid((n + 511) / 512);
                   dim3 dimBlockXY(4, 4), dimGridXY((n + 3) / 4, (n + 3) / 4);
                   for (int t = 0; t < steps; t++) {
                     Fan1<<<dimGrid, dimBlock>>>(p[0], p[1], n, t);
                     Fan2<<<dimGridXY, dimBlockXY>>>(p[0], p[1], p[2], n, n - t, t);
                   }
                 }});
  }
  {
    // km: npoints = 64k, nfeatures = 34, nclusters = 5, iterations = 1: invert_mapping on
    // ceil(np/256) blocks, then kmeansPoint on the model's (int)sqrt(blocks)+1 square grid.
    const int np = 64 << 10, nf = 34, nc = 5;
    const int blocks = (np + 255) / 256;
    int perdim = 0;
    while ((perdim + 1) * (perdim + 1) <= blocks) perdim++; // (int)sqrt(blocks)
    perdim += 1;
    v.push_back({"km", "iterations=1", "invert_mapping,kmeansPoint",
                 [=] {
                   p[0] = dalloc((size_t)np * nf, 1); // feature_flipped_d (AoS input)
                   p[1] = dalloc((size_t)np * nf, 2); // feature_d (SoA, texture)
                   p[2] = dalloc(np, 3);              // membership_d (int)
                   p[3] = dalloc(nc * nf, 4);         // clusters_d
                   p[4] = dalloc((size_t)perdim * perdim * nc * nf, 5); // block_clusters_d (unused)
                   p[5] = dalloc((size_t)perdim * perdim, 6);           // block_deltas_d (unused)
                   std::vector<float> c(nc * nf);
                   for (int i = 0; i < nc * nf; i++) c[i] = 0.5f + (float)((i * 37) % 100) / 100.0f;
                   CK(cudaMemcpyToSymbol(c_clusters, c.data(), nc * nf * sizeof(float)));
                   cudaResourceDesc rd;
                   memset(&rd, 0, sizeof(rd));
                   rd.resType = cudaResourceTypeLinear;
                   rd.res.linear.devPtr = p[1];
                   rd.res.linear.desc = cudaCreateChannelDesc<float>();
                   rd.res.linear.sizeInBytes = (size_t)np * nf * sizeof(float);
                   cudaTextureDesc td;
                   memset(&td, 0, sizeof(td));
                   td.filterMode = cudaFilterModePoint;
                   td.readMode = cudaReadModeElementType;
                   td.normalizedCoords = 0;
                   CK(cudaCreateTextureObject(&km_tex, &rd, &td, nullptr));
                 },
                 [=] {
                   invert_mapping<<<blocks, 256>>>(p[0], p[1], np, nf);
                   kmeansPoint<<<dim3(perdim, perdim), dim3(256)>>>(p[1], nf, np, nc, (int *)p[2], p[3], p[4],
                                                                     (int *)p[5], km_tex);
                 }});
  }
}

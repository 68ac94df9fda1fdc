// Batch "parboil": the CUDA kernels behind two more of Locus's Parboil kernel models, written
// for this check in the structure of the public Parboil sources (sgemm `mysgemmNT`,
// benchmarks/sgemm/src/cuda/sgemm_kernel.cu; lbm `performStreamCollide_kernel`,
// benchmarks/lbm/src/cuda/lbm_kernel.cu with the GATHER layout the model uses) at the
// inputs the Locus models build at the params listed with each entry. Included by
// kernels.cu (after Bench and dalloc) under LOCUS_BATCH_PARBOIL; add_batch_parboil()
// appends the entries to benches().
//
// lbm's obstacle / accelerated-lid flags decide control flow, so the grid is generated here
// exactly as the model's initial_grid() (crates/workload/src/bench/parboil/lbm.rs) does.

// ---------------- Parboil sgemm ----------------
#define PB_TILE_N 16
#define PB_TILE_TB_HEIGHT 8
#define PB_TILE_M (PB_TILE_N * PB_TILE_TB_HEIGHT)

// C = alpha * A * B^T + beta * C, column-major; 16 x 8 threads per 128 x 16 tile of C.
__global__ void mysgemmNT(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k,
                          float alpha, float beta) {
  float c[PB_TILE_N];
  for (int i = 0; i < PB_TILE_N; i++) c[i] = 0.0f;
  int mid = threadIdx.y * blockDim.x + threadIdx.x;
  int m = blockIdx.x * PB_TILE_M + mid;
  int n = blockIdx.y * PB_TILE_N + threadIdx.x;
  __shared__ float b_s[PB_TILE_TB_HEIGHT][PB_TILE_N];
  for (int i = 0; i < k; i += PB_TILE_TB_HEIGHT) {
    float a;
    b_s[threadIdx.y][threadIdx.x] = B[n + (i + threadIdx.y) * ldb];
    __syncthreads();
    for (int j = 0; j < PB_TILE_TB_HEIGHT; j++) {
      a = A[m + (i + j) * lda];
      for (int kk = 0; kk < PB_TILE_N; kk++) c[kk] += a * b_s[j][kk];
    }
    __syncthreads();
  }
  int t = ldc * blockIdx.y * PB_TILE_N + m;
  for (int i = 0; i < PB_TILE_N; i++) C[t + i * ldc] = C[t + i * ldc] * beta + alpha * c[i];
}

// ---------------- Parboil lbm ----------------
// Model default grid (lbm.rs default_sides(): rule-1 scaling of 120 x 120 x 150).
#define PB_SIZE_X 48
#define PB_SIZE_Y 53
#define PB_SIZE_Z 66
#define PB_PADDED_X (PB_SIZE_X + 8)
#define PB_PADDED_Y (PB_SIZE_Y + 0)
#define PB_PADDED_Z (PB_SIZE_Z + 4)
#define PB_TOTAL_PADDED_CELLS (PB_PADDED_X * PB_PADDED_Y * PB_PADDED_Z)
#define PB_N_CELL_ENTRIES 20
// structure-of-arrays flattening (as lbm.rs Layout::idx)
#define PB_CALC_INDEX(x, y, z, e) (PB_TOTAL_PADDED_CELLS * (e) + ((x) + (y) * PB_PADDED_X + (z) * PB_PADDED_X * PB_PADDED_Y))
#define PB_MARGIN (PB_CALC_INDEX(0, 0, 2, 0) - PB_CALC_INDEX(0, 0, 0, 0))
#define PB_GRID_ENTRY_SWEEP(g, dx, dy, dz, e) ((g)[PB_CALC_INDEX((dx) + sweep_x, (dy) + sweep_y, (dz) + sweep_z, e)])
#define PB_OMEGA (1.95f)
#define PB_DFL1 (1.0f / 3.0f)
#define PB_DFL2 (1.0f / 18.0f)
#define PB_DFL3 (1.0f / 36.0f)
enum { PB_C = 0, PB_N, PB_S, PB_E, PB_W, PB_T, PB_B, PB_NE, PB_NW, PB_SE, PB_SW,
       PB_NT, PB_NB, PB_ST, PB_SB, PB_ET, PB_EB, PB_WT, PB_WB, PB_FLAGS };
enum { PB_OBSTACLE = 1 << 0, PB_ACCEL = 1 << 1 };

// GATHER (pull) form: each distribution is read from the neighbour it streams from and the
// 19 results are written to the cell's own entries. srcGrid / dstGrid point past the margin.
__global__ void performStreamCollide_kernel(float *srcGrid, float *dstGrid) {
  int sweep_x = threadIdx.x;
  int sweep_y = blockIdx.x;
  int sweep_z = blockIdx.y;

  float temp_swp, tempC, tempN, tempS, tempE, tempW, tempT, tempB;
  float tempNE, tempNW, tempSE, tempSW, tempNT, tempNB, tempST;
  float tempSB, tempET, tempEB, tempWT, tempWB;

  tempC = PB_GRID_ENTRY_SWEEP(srcGrid, 0, 0, 0, PB_C);
  tempN = PB_GRID_ENTRY_SWEEP(srcGrid, 0, -1, 0, PB_N);
  tempS = PB_GRID_ENTRY_SWEEP(srcGrid, 0, +1, 0, PB_S);
  tempE = PB_GRID_ENTRY_SWEEP(srcGrid, -1, 0, 0, PB_E);
  tempW = PB_GRID_ENTRY_SWEEP(srcGrid, +1, 0, 0, PB_W);
  tempT = PB_GRID_ENTRY_SWEEP(srcGrid, 0, 0, -1, PB_T);
  tempB = PB_GRID_ENTRY_SWEEP(srcGrid, 0, 0, +1, PB_B);
  tempNE = PB_GRID_ENTRY_SWEEP(srcGrid, -1, -1, 0, PB_NE);
  tempNW = PB_GRID_ENTRY_SWEEP(srcGrid, +1, -1, 0, PB_NW);
  tempSE = PB_GRID_ENTRY_SWEEP(srcGrid, -1, +1, 0, PB_SE);
  tempSW = PB_GRID_ENTRY_SWEEP(srcGrid, +1, +1, 0, PB_SW);
  tempNT = PB_GRID_ENTRY_SWEEP(srcGrid, 0, -1, -1, PB_NT);
  tempNB = PB_GRID_ENTRY_SWEEP(srcGrid, 0, -1, +1, PB_NB);
  tempST = PB_GRID_ENTRY_SWEEP(srcGrid, 0, +1, -1, PB_ST);
  tempSB = PB_GRID_ENTRY_SWEEP(srcGrid, 0, +1, +1, PB_SB);
  tempET = PB_GRID_ENTRY_SWEEP(srcGrid, -1, 0, -1, PB_ET);
  tempEB = PB_GRID_ENTRY_SWEEP(srcGrid, -1, 0, +1, PB_EB);
  tempWT = PB_GRID_ENTRY_SWEEP(srcGrid, +1, 0, -1, PB_WT);
  tempWB = PB_GRID_ENTRY_SWEEP(srcGrid, +1, 0, +1, PB_WB);

  if (*((unsigned int *)((void *)(&PB_GRID_ENTRY_SWEEP(srcGrid, 0, 0, 0, PB_FLAGS)))) & PB_OBSTACLE) {
    temp_swp = tempN; tempN = tempS; tempS = temp_swp;
    temp_swp = tempE; tempE = tempW; tempW = temp_swp;
    temp_swp = tempT; tempT = tempB; tempB = temp_swp;
    temp_swp = tempNE; tempNE = tempSW; tempSW = temp_swp;
    temp_swp = tempNW; tempNW = tempSE; tempSE = temp_swp;
    temp_swp = tempNT; tempNT = tempSB; tempSB = temp_swp;
    temp_swp = tempNB; tempNB = tempST; tempST = temp_swp;
    temp_swp = tempET; tempET = tempWB; tempWB = temp_swp;
    temp_swp = tempEB; tempEB = tempWT; tempWT = temp_swp;
  } else {
    float ux, uy, uz, rho, u2;
    float temp1, temp2, temp_base;
    rho = tempC + tempN + tempS + tempE + tempW + tempT + tempB + tempNE + tempNW + tempSE + tempSW +
          tempNT + tempNB + tempST + tempSB + tempET + tempEB + tempWT + tempWB;
    ux = +tempE - tempW + tempNE - tempNW + tempSE - tempSW + tempET + tempEB - tempWT - tempWB;
    uy = +tempN - tempS + tempNE + tempNW - tempSE - tempSW + tempNT + tempNB - tempST - tempSB;
    uz = +tempT - tempB + tempNT - tempNB + tempST - tempSB + tempET - tempEB + tempWT - tempWB;
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if (*((unsigned int *)((void *)(&PB_GRID_ENTRY_SWEEP(srcGrid, 0, 0, 0, PB_FLAGS)))) & PB_ACCEL) {
      ux = 0.005f;
      uy = 0.002f;
      uz = 0.000f;
    }
    u2 = 1.5f * (ux * ux + uy * uy + uz * uz) - 1.0f;
    temp_base = PB_OMEGA * rho;
    temp1 = PB_DFL1 * temp_base;
    temp2 = 1.0f - PB_OMEGA;
    tempC = temp2 * tempC + temp1 * (-u2);
    temp1 = PB_DFL2 * temp_base;
    tempN = temp2 * tempN + temp1 * (uy * (4.5f * uy + 3.0f) - u2);
    tempS = temp2 * tempS + temp1 * (uy * (4.5f * uy - 3.0f) - u2);
    tempT = temp2 * tempT + temp1 * (uz * (4.5f * uz + 3.0f) - u2);
    tempB = temp2 * tempB + temp1 * (uz * (4.5f * uz - 3.0f) - u2);
    tempE = temp2 * tempE + temp1 * (ux * (4.5f * ux + 3.0f) - u2);
    tempW = temp2 * tempW + temp1 * (ux * (4.5f * ux - 3.0f) - u2);
    temp1 = PB_DFL3 * temp_base;
    tempNT = temp2 * tempNT + temp1 * ((+uy + uz) * (4.5f * (+uy + uz) + 3.0f) - u2);
    tempNB = temp2 * tempNB + temp1 * ((+uy - uz) * (4.5f * (+uy - uz) + 3.0f) - u2);
    tempST = temp2 * tempST + temp1 * ((-uy + uz) * (4.5f * (-uy + uz) + 3.0f) - u2);
    tempSB = temp2 * tempSB + temp1 * ((-uy - uz) * (4.5f * (-uy - uz) + 3.0f) - u2);
    tempNE = temp2 * tempNE + temp1 * ((+ux + uy) * (4.5f * (+ux + uy) + 3.0f) - u2);
    tempSE = temp2 * tempSE + temp1 * ((+ux - uy) * (4.5f * (+ux - uy) + 3.0f) - u2);
    tempET = temp2 * tempET + temp1 * ((+ux + uz) * (4.5f * (+ux + uz) + 3.0f) - u2);
    tempEB = temp2 * tempEB + temp1 * ((+ux - uz) * (4.5f * (+ux - uz) + 3.0f) - u2);
    tempNW = temp2 * tempNW + temp1 * ((-ux + uy) * (4.5f * (-ux + uy) + 3.0f) - u2);
    tempSW = temp2 * tempSW + temp1 * ((-ux - uy) * (4.5f * (-ux - uy) + 3.0f) - u2);
    tempWT = temp2 * tempWT + temp1 * ((-ux + uz) * (4.5f * (-ux + uz) + 3.0f) - u2);
    tempWB = temp2 * tempWB + temp1 * ((-ux - uz) * (4.5f * (-ux - uz) + 3.0f) - u2);
  }

  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_C) = tempC;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_N) = tempN;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_S) = tempS;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_E) = tempE;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_W) = tempW;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_T) = tempT;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_B) = tempB;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_NE) = tempNE;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_NW) = tempNW;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_SE) = tempSE;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_SW) = tempSW;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_NT) = tempNT;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_NB) = tempNB;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_ST) = tempST;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_SB) = tempSB;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_ET) = tempET;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_EB) = tempEB;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_WT) = tempWT;
  PB_GRID_ENTRY_SWEEP(dstGrid, 0, 0, 0, PB_WB) = tempWB;
}

// Host grid as lbm.rs initial_grid(): LBM_initializeGrid + LBM_initializeSpecialCellsForLDC
// (no obstacle file), margins included; returns a device pointer to the allocation's start.
static float *pb_lbm_grid() {
  const size_t total = (size_t)PB_TOTAL_PADDED_CELLS * PB_N_CELL_ENTRIES + 2 * (size_t)PB_MARGIN;
  std::vector<float> h(total, 0.0f);
  float *g = h.data() + PB_MARGIN;
  for (int z = -2; z < PB_SIZE_Z + 2; z++)
    for (int y = 0; y < PB_SIZE_Y; y++)
      for (int x = 0; x < PB_SIZE_X; x++) {
        for (int e = 0; e < 19; e++)
          g[PB_CALC_INDEX(x, y, z, e)] = e == 0 ? PB_DFL1 : (e <= 6 ? PB_DFL2 : PB_DFL3);
        unsigned f = 0;
        if (z >= 0 && z < PB_SIZE_Z) {
          if (x == 0 || x == PB_SIZE_X - 1 || y == 0 || y == PB_SIZE_Y - 1 || z == 0 || z == PB_SIZE_Z - 1)
            f = PB_OBSTACLE;
          else if ((z == 1 || z == PB_SIZE_Z - 2) && x > 1 && x < PB_SIZE_X - 2 && y > 1 && y < PB_SIZE_Y - 2)
            f = PB_ACCEL;
        }
        memcpy(&g[PB_CALC_INDEX(x, y, z, PB_FLAGS)], &f, sizeof f);
      }
  float *d;
  CK(cudaMalloc(&d, total * sizeof(float)));
  CK(cudaMemcpy(d, h.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

static void add_batch_parboil(std::vector<Bench> &v, float **p) {
  {
    // mm (Parboil sgemm mysgemmNT): m = n = 2048, k = 64 (model default), alpha 1, beta 0;
    // grid (m / 128, n / 16) = (16, 128), 16 x 8 threads, 512 B of static shared memory
    const int m = 2048, n = 2048, k = 64;
    v.push_back({"mm", "", "mysgemmNT",
                 [=] { p[0] = dalloc((size_t)m * k, 1); p[1] = dalloc((size_t)n * k, 2); p[2] = dalloc((size_t)m * n, 3); },
                 [=] {
                   dim3 grid(m / PB_TILE_M, n / PB_TILE_N), threads(PB_TILE_N, PB_TILE_TB_HEIGHT);
                   mysgemmNT<<<grid, threads>>>(p[0], m, p[1], n, p[2], m, k, 1.0f, 0.0f);
                 }});
  }
  {
    // lbm: 48 x 53 x 66 cells (model default), one time step (steps=1): grid (SIZE_Y,
    // SIZE_Z) = (53, 66), SIZE_X = 48 threads; src = p[0], dst = p[1] (both initialised)
    v.push_back({"lbm", "steps=1", "performStreamCollide_kernel",
                 [=] { p[0] = pb_lbm_grid(); p[1] = pb_lbm_grid(); },
                 [=] {
                   dim3 grid(PB_SIZE_Y, PB_SIZE_Z), block(PB_SIZE_X);
                   performStreamCollide_kernel<<<grid, block>>>(p[0] + PB_MARGIN, p[1] + PB_MARGIN);
                 }});
  }
}

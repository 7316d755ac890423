// mandelbrot.cu in OpenCL C: per-pixel escape count, 2D NDRange;
// pixel (px, py) maps to c = (x0 + px * dx, y0 + py * dy).
__kernel void mandelbrot(__global unsigned int* out, int width, int height,
                         float x0, float y0, float dx, float dy, int max_iter)
{
    int px = get_global_id(0);
    int py = get_global_id(1);
    if (px >= width || py >= height) return;

    float cr = x0 + px * dx;
    float ci = y0 + py * dy;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter) {
        float zr2 = zr * zr;
        float zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) break;
        float t = zr2 - zi2 + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    out[py * width + px] = (unsigned int)it;
}

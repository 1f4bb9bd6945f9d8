#include "Capture.h"

#include <fmt/format.h>
#include <fmt/os.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "Renderer.h"

namespace propimpact::viewer {
namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

void writePng(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error(fmt::format("cannot write {}", path));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    throw std::runtime_error("libpng: out of memory");
  }
  // libpng reports errors by longjmp: nothing with a destructor lives between here and the end.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error(fmt::format("libpng could not write {}", path));
  }
  png_init_io(png, file.get());
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y) png_write_row(png, rgb.data() + std::size_t(y) * std::size_t(width) * 3);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fflush(file.get()) != 0) throw std::runtime_error(fmt::format("cannot write {}", path));
}

Recorder::Recorder(std::string dir, int every) : m_dir(std::move(dir)), m_every(std::max(every, 1)) {
  if (!m_dir.empty()) std::filesystem::create_directories(m_dir);
}

void Recorder::write(long index, int width, int height, const std::vector<unsigned char>& rgb) const {
  writePng(fmt::format("{}/frame-{:05d}.png", m_dir, index), width, height, rgb);
}

void writeProbe(const std::string& path, int width, int height, const Viewport (&viewports)[2],
                const std::vector<ProbePoint>& points, std::size_t clusters) {
  auto out = fmt::output_file(path);
  out.print("image {} {}\n", width, height);
  out.print("background {} {} {}\n", std::lround(kBackground[0] * 255), std::lround(kBackground[1] * 255),
            std::lround(kBackground[2] * 255));
  for (int side = 0; side < 2; ++side)
    out.print("viewport {} {} {} {} {}\n", side, viewports[side].x, viewports[side].y, viewports[side].width,
              viewports[side].height);
  out.print("clusters {}\n", clusters);
  const auto byte = [](float c) { return std::lround(c * 255); };
  for (int i = 0; i < kPaletteSize; ++i) {
    const Eigen::Vector4f c = bodyColor(i);
    out.print("palette {} {} {}\n", byte(c.x()), byte(c.y()), byte(c.z()));
  }
  for (const ProbePoint& p : points)
    out.print("body {} {} {:.1f} {:.1f} {:.1f} {} {} {}\n", p.side, p.body, p.x, p.y, p.radius, byte(p.color.x()),
              byte(p.color.y()), byte(p.color.z()));
}

}  // namespace propimpact::viewer

// Checks a viewer screenshot against the probe file the viewer wrote with
// it: every body whose centre the projection puts inside a 3-D view is
// really drawn there, in a body's colour (lighting scales a colour but keeps
// its chromaticity; walls, floors and the background are grey-blue), most
// of them in their own colour (a body hidden behind another shows the
// other's); and each half shows both bodies and background. Exit 0 when the
// picture passes.
//   propimpact_viewer_png_check IMAGE.png PROBE.txt
#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// Sum of |ΔR| + |ΔG| + |ΔB| beyond which a pixel is not background (the
/// darkest lit body colour is far above it, PNG is lossless).
constexpr int kBackgroundTolerance = 24;
/// Of the 9 samples on a body (its centre and 8 points at half its projected
/// radius around it), at least this many must be in a body's colour: an
/// impulse arrow or a label drawn across the body hides at most a few.
constexpr int kDrawnAroundCentre = 5;
/// Largest difference of chromaticity r/(r+g+b), ... between a lit pixel and its unlit colour (8-bit round-off).
constexpr double kChromaTolerance = 0.05;
/// Pixels darker than this (sum of channels) have no reliable chromaticity.
constexpr int kDarkest = 40;
/// At least this fraction of a view's probed bodies must show their own colour.
constexpr double kMinOwnColour = 0.5;
/// Each view must have at least this fraction drawn, and this fraction background.
constexpr double kMinDrawn = 0.002;
constexpr double kMinBackground = 0.2;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  [[nodiscard]] const unsigned char* at(int x, int y) const {
    return rgb.data() + (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 3;
  }
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

Image readPng(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str()))
    throw std::runtime_error(fmt::format("{}: not a PNG ({})", path, image.message));
  image.format = PNG_FORMAT_RGB;
  Image out;
  out.width = int(image.width);
  out.height = int(image.height);
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr))
    throw std::runtime_error(fmt::format("{}: unreadable PNG ({})", path, image.message));
  return out;
}

struct Probe {
  int width = 0, height = 0;
  std::array<int, 3> background{};
  std::array<std::array<int, 4>, 2> viewports{};
  struct Body {
    int side = 0, index = 0;
    double x = 0, y = 0, radius = 0;
    std::array<int, 3> color{};
  };
  std::vector<Body> bodies;
  std::vector<std::array<int, 3>> palette;
};

Probe readProbe(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path));
  Probe p;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "image") words >> p.width >> p.height;
    if (kind == "background") words >> p.background[0] >> p.background[1] >> p.background[2];
    if (kind == "viewport") {
      int side = 0;
      words >> side;
      for (int& v : p.viewports.at(std::size_t(side))) words >> v;
    }
    if (kind == "body") {
      Probe::Body b;
      words >> b.side >> b.index >> b.x >> b.y >> b.radius >> b.color[0] >> b.color[1] >> b.color[2];
      p.bodies.push_back(b);
    }
    if (kind == "palette") {
      std::array<int, 3> c{};
      words >> c[0] >> c[1] >> c[2];
      p.palette.push_back(c);
    }
  }
  return p;
}

bool drawn(const Image& image, const Probe& probe, int x, int y) {
  const unsigned char* c = image.at(x, y);
  int difference = 0;
  for (int k = 0; k < 3; ++k) difference += std::abs(int(c[k]) - probe.background[std::size_t(k)]);
  return difference > kBackgroundTolerance;
}

bool sameHue(const unsigned char* pixel, const std::array<int, 3>& colour) {
  const int sum = int(pixel[0]) + int(pixel[1]) + int(pixel[2]);
  const int reference = colour[0] + colour[1] + colour[2];
  if (sum < kDarkest || reference <= 0) return false;
  for (int k = 0; k < 3; ++k)
    if (std::abs(double(pixel[k]) / sum - double(colour[std::size_t(k)]) / reference) > kChromaTolerance) return false;
  return true;
}

/// How many of the 9 samples of a body at (cx, cy) of projected radius \p radius pass \p test.
template <class Test>
int around(const Image& image, double cx, double cy, double radius, Test test) {
  constexpr double kPi = 3.14159265358979;
  const double reach = std::max(1.0, 0.5 * radius);
  int count = 0;
  for (int k = -1; k < 8; ++k) {
    const double angle = k * kPi / 4, r = k < 0 ? 0 : reach;
    const int x = int(std::lround(cx + r * std::cos(angle))), y = int(std::lround(cy + r * std::sin(angle)));
    if (x >= 0 && y >= 0 && x < image.width && y < image.height && test(image.at(x, y))) ++count;
  }
  return count;
}

/// Returns the failures of one view (empty when it passes).
std::vector<std::string> checkView(const Image& image, const Probe& probe, int side) {
  std::vector<std::string> failures;
  const auto& v = probe.viewports[std::size_t(side)];
  long drawnPixels = 0, total = 0;
  for (int y = v[1]; y < v[1] + v[3]; ++y)
    for (int x = v[0]; x < v[0] + v[2]; ++x, ++total) drawnPixels += drawn(image, probe, x, y) ? 1 : 0;
  const double fraction = total > 0 ? double(drawnPixels) / double(total) : 0;
  fmt::print("view {}: {:.1f} % drawn\n", side, 100 * fraction);
  if (fraction < kMinDrawn) failures.push_back(fmt::format("view {} is (almost) all background", side));
  if (1 - fraction < kMinBackground) failures.push_back(fmt::format("view {} has (almost) no background", side));
  int bodies = 0, own = 0;
  for (const Probe::Body& b : probe.bodies) {
    if (b.side != side) continue;
    ++bodies;
    const auto isOwn = [&](const unsigned char* c) { return sameHue(c, b.color); };
    const auto isBody = [&](const unsigned char* c) {
      for (const auto& colour : probe.palette)
        if (sameHue(c, colour)) return true;
      return false;
    };
    if (around(image, b.x, b.y, b.radius, isOwn) >= kDrawnAroundCentre)
      ++own;
    else if (around(image, b.x, b.y, b.radius, isBody) < kDrawnAroundCentre)
      failures.push_back(fmt::format("view {}: body {} is not drawn at ({:.0f}, {:.0f}) where the projection puts it",
                                     side, b.index, b.x, b.y));
  }
  if (bodies > 0 && double(own) < kMinOwnColour * bodies)
    failures.push_back(fmt::format("view {}: only {} of {} bodies show their own colour", side, own, bodies));
  fmt::print("view {}: {} bodies checked at their projected centres, {} in their own colour\n", side, bodies, own);
  if (bodies == 0) failures.push_back(fmt::format("view {}: no body inside the view", side));
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: {} IMAGE.png PROBE.txt\n", argv[0]);
    return 2;
  }
  try {
    const Image image = readPng(argv[1]);
    const Probe probe = readProbe(argv[2]);
    if (image.width != probe.width || image.height != probe.height) {
      fmt::print(stderr, "FAIL: image is {}x{}, the probe says {}x{}\n", image.width, image.height, probe.width,
                 probe.height);
      return 1;
    }
    std::vector<std::string> failures;
    for (int side = 0; side < 2; ++side)
      for (const std::string& f : checkView(image, probe, side)) failures.push_back(f);
    for (const std::string& f : failures) fmt::print(stderr, "FAIL: {}\n", f);
    if (failures.empty()) fmt::print("PASS: {} shows every probed body in both views\n", argv[1]);
    return failures.empty() ? 0 : 1;
  } catch (const std::exception& error) {
    fmt::print(stderr, "FAIL: {}\n", error.what());
    return 1;
  }
}

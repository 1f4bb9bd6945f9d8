#pragma once
/// \file Capture.h
/// Pictures out of the viewer: PNG files of a frame (libpng), every k-th
/// frame into a directory, and a probe file saying where the projection put
/// each body, so that a test can check the picture's content.

#include <Eigen/Core>

#include <string>
#include <vector>

#include "Camera.h"

namespace propimpact::viewer {

/// Writes \p rgb (rows top first, 3 bytes a pixel) as an 8-bit RGB PNG.
/// Throws std::runtime_error when the file cannot be written.
void writePng(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb);

/// Writes every k-th frame to dir/frame-NNNNN.png.
class Recorder {
 public:
  /// Creates \p dir if needed; an empty dir records nothing.
  Recorder(std::string dir, int every);
  /// True when frame \p index is to be written.
  [[nodiscard]] bool wants(long index) const { return !m_dir.empty() && index % m_every == 0; }
  /// Writes frame \p index.
  void write(long index, int width, int height, const std::vector<unsigned char>& rgb) const;

 private:
  std::string m_dir;
  long m_every = 1;
};

/// Where one body's centre landed in the picture.
struct ProbePoint {
  int side = 0;          ///< 0 stock (left), 1 propagative (right).
  int body = 0;          ///< index among the world's dynamic bodies.
  float x = 0, y = 0;    ///< pixel, top-left origin.
  float radius = 0;      ///< projected radius of its bounding sphere (pixels).
  Eigen::Vector3f color = Eigen::Vector3f::Zero();  ///< its unlit colour (0..1).
};

/// Writes the probe file: image size, background colour, the two viewports
/// and the bodies whose centre is inside their viewport. Line formats:
/// `image W H`, `background R G B` (0..255), `viewport SIDE X Y W H`,
/// `body SIDE INDEX X Y RADIUS R G B`, `palette R G B` (every body colour),
/// `clusters N` (impact clusters of the impact shown, 0 if none).
void writeProbe(const std::string& path, int width, int height, const Viewport (&viewports)[2],
                const std::vector<ProbePoint>& points, std::size_t clusters);

}  // namespace propimpact::viewer

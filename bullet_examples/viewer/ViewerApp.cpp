#include "ViewerApp.h"

#include "Gl.h"

#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>

#include "SceneCatalog.h"

namespace propimpact::viewer {
namespace {

using Eigen::Vector3f;

constexpr double kFrameRate = 60;           // frames per shown second (simulated time per frame = slow / 60)
constexpr int kMaxSubstepsPerFrame = 64;    // beyond, the simulation falls behind instead of spiralling
constexpr float kStaticAlpha = 0.35f;       // static bodies are see-through: a closed box shows what is inside
constexpr double kOverlaySeconds = 0.15;    // an impact's overlay stays this long (simulated): later, the bodies have moved on
const Vector3f kLight = Vector3f(0.4f, 1.0f, 0.6f).normalized();

/// Set by SIGINT / SIGTERM: the loop ends after the frame it is in, so a
/// PNG being written by --record is finished, not cut off.
volatile std::sig_atomic_t g_stopRequested = 0;
void requestStop(int) { g_stopRequested = 1; }

Vector3f toVector(const btVector3& v) { return Vector3f(float(v.x()), float(v.y()), float(v.z())); }

PairConfig pairConfig(const ViewerOptions& o) {
  PairConfig config;
  config.scene = o.scene;
  config.worldFile = o.worldFile;
  config.stockSolver = o.stockSolver;
  config.ordering = orderingFromName(o.ordering);
  config.cor = o.cor;
  config.hz = o.hz;
  return config;
}

void addLine(std::vector<LineVertex>& out, const Vector3f& a, const Vector3f& b) {
  out.push_back({{a.x(), a.y(), a.z()}, {0.75f, 0.75f, 0.78f, 0.9f}});
  out.push_back({{b.x(), b.y(), b.z()}, {0.75f, 0.75f, 0.78f, 0.9f}});
}

/// Point-to-point constraints (the cradle's strings) as lines from the body to its anchor.
void constraintLines(btDiscreteDynamicsWorld& world, std::vector<LineVertex>& out) {
  for (int i = 0; i < world.getNumConstraints(); ++i) {
    const btTypedConstraint* c = world.getConstraint(i);
    if (c->getConstraintType() != POINT2POINT_CONSTRAINT_TYPE) continue;
    const auto* p2p = static_cast<const btPoint2PointConstraint*>(c);
    const btRigidBody& a = p2p->getRigidBodyA();
    const btRigidBody& b = p2p->getRigidBodyB();
    addLine(out, toVector(a.getCenterOfMassPosition()), toVector(a.getCenterOfMassTransform() * p2p->getPivotInA()));
    if (b.getInvMass() > 0)
      addLine(out, toVector(b.getCenterOfMassPosition()), toVector(b.getCenterOfMassTransform() * p2p->getPivotInB()));
  }
}

}  // namespace

int runViewer(const ViewerOptions& options) {
  ViewerApp app(options);
  return app.run();
}

ViewerApp::ViewerApp(const ViewerOptions& options)
    : m_options(options),
      m_pair(pairConfig(options)),
      m_window(options.width, options.height, "propimpact-viewer: stock Bullet | propagative", !options.hidden),
      m_recorder(options.recordDir, options.recordEvery) {
  m_ui.pauseOnImpact = options.pauseOnImpact;
  m_ui.slowMotion = float(options.slowMotion);
  m_ui.hz = float(options.hz);
  m_ui.cor = sliderCor();
}

float ViewerApp::sliderCor() const {
  const double forced = m_pair.config().cor, built = m_pair.builtCor();
  // A file's bodies keep their own restitution until the slider moves; it starts at 1.
  return float(forced >= 0 ? forced : built >= 0 ? built : 1.0);
}

int ViewerApp::run() {
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  long frame = 0;
  while (!m_window.shouldClose() && !g_stopRequested) {
    const double start = m_window.time();
    m_window.beginFrame();
    layout();
    handleInput();
    applyActions();
    refitOnNewScene();
    advance();
    int width = 0, height = 0;
    m_window.framebufferSize(width, height);
    m_renderer.begin(width, height);
    for (const Side side : kSides) drawWorld(side);
    m_renderer.endScene();
    drawTitles();
    if (!m_options.hideUi) drawPanels();
    m_window.renderUi();
    const bool last = m_options.frames > 0 && frame + 1 >= m_options.frames;
    capture(frame, last);
    m_renderer.present();
    m_window.swap();
    m_stats.frame = 1000 * (m_window.time() - start);
    if (last) break;
    ++frame;
  }
  return 0;
}

void ViewerApp::layout() {
  const ImGuiIO& io = ImGui::GetIO();
  m_uiScale = std::max(io.DisplayFramebufferScale.x, 1.0f);
  const float w = io.DisplaySize.x, h = io.DisplaySize.y;
  m_panelHeight = m_options.hideUi ? 0 : std::clamp(0.36f * h, 150.0f, 270.0f);
  const int viewHeight = std::max(1, int((h - m_panelHeight) * m_uiScale));
  const int half = std::max(1, int(w * m_uiScale) / 2);
  m_views[0] = {0, 0, std::max(1, half - 1), viewHeight};  // one pixel of the panel colour between the halves
  m_views[1] = {half + 1, 0, std::max(1, int(w * m_uiScale) - half - 1), viewHeight};
}

void ViewerApp::refitOnNewScene() {
  // A plain reset keeps the user's camera; another scene or file is framed anew.
  const std::string fitFor = m_pair.config().worldFile.empty() ? m_pair.config().scene : m_pair.config().worldFile;
  if (fitFor != m_fittedFor) {
    m_fittedFor = fitFor;
    fitCamera();
  }
}

namespace {

/// The box around the dynamic bodies and the strings' anchors, grown by the
/// static bodies of about the scene's size (the walls of a closed box, so the
/// camera is outside them) but not by a floor far larger than the scene.
void sceneBounds(btDiscreteDynamicsWorld& world, Vector3f& lo, Vector3f& hi) {
  lo = Vector3f::Constant(1e30f);
  hi = Vector3f::Constant(-1e30f);
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  std::vector<std::pair<Vector3f, Vector3f>> statics;
  for (int i = 0; i < objects.size(); ++i) {
    btVector3 a, b;
    objects[i]->getCollisionShape()->getAabb(objects[i]->getWorldTransform(), a, b);
    if (objects[i]->isStaticOrKinematicObject()) {
      statics.emplace_back(toVector(a), toVector(b));
      continue;
    }
    lo = lo.cwiseMin(toVector(a));
    hi = hi.cwiseMax(toVector(b));
  }
  std::vector<LineVertex> strings;
  constraintLines(world, strings);
  for (const LineVertex& v : strings) {
    const Vector3f p(v.position[0], v.position[1], v.position[2]);
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  if (lo.x() > hi.x()) lo = hi = Vector3f::Zero();
  constexpr float kStaticSizeFactor = 3;  // a static body at most this many times the scene's size is part of it
  const float size = std::max((hi - lo).norm(), 1.0f);
  for (const auto& [a, b] : statics)
    if ((b - a).norm() <= kStaticSizeFactor * size) {
      lo = lo.cwiseMin(a);
      hi = hi.cwiseMax(b);
    }
}

}  // namespace

void ViewerApp::fitCamera() {
  Vector3f lo, hi;
  const BuiltScene& built = m_pair.built();
  if (built.framed) {
    lo = toVector(built.lo);
    hi = toVector(built.hi);
  } else {
    sceneBounds(m_pair.world(Side::Propagative).dynamics(), lo, hi);
  }
  m_sceneRadius = std::max(0.5f * (hi - lo).norm(), 0.5f);
  m_camera.fit(lo, hi, m_views[0].aspect());
}

void ViewerApp::handleInput() {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false)) m_ui.paused = !m_ui.paused;
    if (ImGui::IsKeyPressed(GLFW_KEY_N)) m_actions.stepOnce = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) m_actions.reset = true;
  }
  if (io.WantCaptureMouse) return;
  const Viewport& view = m_views[0];
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right)) m_camera.orbit(-io.MouseDelta.x, io.MouseDelta.y);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Middle))
    m_camera.pan(io.MouseDelta.x * m_uiScale, io.MouseDelta.y * m_uiScale, view);
  if (io.MouseWheel != 0) m_camera.zoom(std::pow(0.9f, io.MouseWheel));
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    const float px = io.MousePos.x * m_uiScale, py = io.MousePos.y * m_uiScale;
    for (const Viewport& v : m_views)
      if (v.contains(px, py)) shootAt(px, py, v);
  }
}

void ViewerApp::shootAt(float px, float py, const Viewport& viewport) {
  const Vector3f direction = m_camera.rayDirection(px, py, viewport);
  const Vector3f from = m_camera.eye() + 0.2f * m_camera.distance() * direction;
  const Vector3f velocity = m_ui.shootSpeed * direction;
  m_pair.shoot(btVector3(btScalar(from.x()), btScalar(from.y()), btScalar(from.z())),
               btVector3(btScalar(velocity.x()), btScalar(velocity.y()), btScalar(velocity.z())),
               std::clamp(0.04 * double(m_sceneRadius), 0.1, 0.5));
}

void ViewerApp::applyActions() {
  PairConfig& config = m_pair.config();
  if (m_actions.corChanged) m_pair.setRestitution(double(m_ui.cor));
  if (m_actions.orderingChanged) m_pair.setOrdering(config.ordering);
  if (m_actions.hzChanged) config.hz = double(m_ui.hz);
  if (m_actions.reset) {
    m_pair.reset();
    m_overlay.clear();
    m_accumulator = 0;
    m_ui.cor = sliderCor();
  }
  if (m_pair.generation() != m_meshGeneration) {
    m_meshes.clearHulls();
    m_meshGeneration = m_pair.generation();
  }
}

bool ViewerApp::substepOnce() {
  const bool impact = m_pair.substep();
  if (impact) m_overlay.capture(m_pair);
  m_stats.stock = m_pair.stepMillis(Side::Stock);
  m_stats.propagative = m_pair.stepMillis(Side::Propagative);
  return impact;
}

void ViewerApp::advance() {
  const bool stepOnce = m_actions.stepOnce;
  m_actions = UiActions{};
  if (stepOnce) {
    m_ui.paused = true;
    (void)substepOnce();
    return;
  }
  if (m_ui.paused) return;
  m_accumulator += double(m_ui.slowMotion) / kFrameRate;
  const double dt = 1.0 / m_pair.config().hz;
  int budget = kMaxSubstepsPerFrame;
  while (m_accumulator >= dt && budget > 0) {
    m_accumulator -= dt;
    --budget;
    if (substepOnce() && m_ui.pauseOnImpact) {
      m_ui.paused = true;
      m_accumulator = 0;
      return;
    }
  }
  if (budget == 0) m_accumulator = 0;
}

void ViewerApp::drawWorld(Side side) {
  const Viewport& view = m_views[std::size_t(side)];
  m_renderer.clearViewport(view);
  btDiscreteDynamicsWorld& world = m_pair.world(side).dynamics();
  std::vector<DrawItem> items;
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  int dynamicIndex = 0;
  const Eigen::Vector4f staticColor(0.55f, 0.58f, 0.62f, kStaticAlpha);
  for (int i = 0; i < objects.size(); ++i) {
    const btCollisionObject* object = objects[i];
    const bool dynamic = !object->isStaticOrKinematicObject();
    const Eigen::Vector4f color = dynamic ? bodyColor(dynamicIndex++) : staticColor;
    m_drawer.collect(*object->getCollisionShape(), object->getWorldTransform(), color, 3 * m_sceneRadius,
                     Vector3f::Zero(), items);
  }
  m_renderer.drawItems(items, m_camera, view, kLight);
  std::vector<LineVertex> lines;
  constraintLines(world, lines);
  m_renderer.drawLines(lines, m_camera, view, false);
  const bool recent = m_pair.time() - m_overlay.snapshot().time < kOverlaySeconds;
  if (m_ui.showContacts && recent) {
    lines.clear();
    m_overlay.lines(side, 0.25f * m_sceneRadius, lines);
    m_renderer.drawLines(lines, m_camera, view, true);
  }
}

void ViewerApp::drawTitles() {
  ImDrawList& draw = *ImGui::GetForegroundDrawList();
  const PairConfig& config = m_pair.config();
  const std::string status = m_ui.paused ? "  [paused]" : "";
  const std::string titles[2] = {
      fmt::format("stock Bullet: {}{}", config.stockSolver, status),
      fmt::format("propagative: {}, R {}{}", toString(config.ordering),
                  config.cor >= 0 ? fmt::format("{:.2f}", config.cor) : std::string("as built"), status)};
  for (const Side side : kSides) {
    const Viewport& v = m_views[std::size_t(side)];
    const ImVec2 at(float(v.x) / m_uiScale + 8, float(v.y) / m_uiScale + 6);
    draw.AddText(at, IM_COL32(235, 235, 240, 255), titles[std::size_t(side)].c_str());
    const bool recent = m_pair.time() - m_overlay.snapshot().time < kOverlaySeconds;
    if (m_ui.showContacts && recent) m_overlay.labels(side, m_camera, v, m_uiScale, draw);
  }
  const std::string clock = fmt::format("t = {:.3f} s", m_pair.time());
  draw.AddText(ImVec2(float(m_views[1].x) / m_uiScale + 8, float(m_views[1].y + m_views[1].height) / m_uiScale - 20),
               IM_COL32(200, 200, 210, 255), clock.c_str());
}

void ViewerApp::drawPanels() {
  const ImGuiIO& io = ImGui::GetIO();
  const float w = io.DisplaySize.x, top = io.DisplaySize.y - m_panelHeight;
  const float controls = std::round(0.36f * w), energy = std::round(0.34f * w);
  drawControls({0, top, controls, m_panelHeight}, m_ui, m_pair, m_stats, m_actions);
  drawEnergy({controls, top, energy, m_panelHeight}, m_pair);
  drawImpact({controls + energy, top, w - controls - energy, m_panelHeight}, m_overlay.snapshot());
}

std::vector<ProbePoint> ViewerApp::probePoints() const {
  std::vector<ProbePoint> points;
  const Eigen::Matrix4f view = m_camera.view();
  const Vector3f up = view.block<1, 3>(1, 0).transpose();
  for (const Side side : kSides) {
    const Viewport& v = m_views[std::size_t(side)];
    const btCollisionObjectArray& objects = m_pair.world(side).dynamics().getCollisionObjectArray();
    int dynamicIndex = 0;
    for (int i = 0; i < objects.size(); ++i) {
      if (objects[i]->isStaticOrKinematicObject()) continue;
      btVector3 centre;
      btScalar radius = 0;
      objects[i]->getCollisionShape()->getBoundingSphere(centre, radius);
      const Vector3f c = toVector(objects[i]->getWorldTransform() * centre);
      Eigen::Vector2f pc, pr;
      if (m_camera.project(c, v, pc) && m_camera.project(c + float(radius) * up, v, pr) && v.contains(pc.x(), pc.y()))
        points.push_back({int(side), dynamicIndex, pc.x(), pc.y(), (pr - pc).norm(), bodyColor(dynamicIndex).head<3>()});
      ++dynamicIndex;
    }
  }
  return points;
}

void ViewerApp::capture(long frame, bool last) {
  const bool record = m_recorder.wants(frame);
  const bool shot = last && !m_options.screenshot.empty();
  if (!record && !shot && !(last && !m_options.probeFile.empty())) return;
  const std::vector<unsigned char> rgb = m_renderer.readRgb();
  if (record) m_recorder.write(frame, m_renderer.width(), m_renderer.height(), rgb);
  if (shot) {
    writePng(m_options.screenshot, m_renderer.width(), m_renderer.height(), rgb);
    fmt::print("propimpact-viewer: wrote {} ({}x{}, frame {}, t = {:.4f} s)\n", m_options.screenshot, m_renderer.width(),
               m_renderer.height(), frame + 1, m_pair.time());
  }
  if (last && !m_options.probeFile.empty())
    writeProbe(m_options.probeFile, m_renderer.width(), m_renderer.height(), m_views, probePoints(),
               m_overlay.snapshot().clusters.size());
}

}  // namespace propimpact::viewer

#include "propimpact/scenes/WorldFile.h"

#include <fmt/format.h>
#include <LinearMath/btSerializer.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>

#include "propimpact/scenes/Solvers.h"

#if PROPIMPACT_HAVE_WORLD_IMPORTER
#include <BulletFileLoader/btBulletFile.h>
#include <BulletWorldImporter/btBulletWorldImporter.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace propimpact::scenes {

void writeWorldFile(btDiscreteDynamicsWorld& world, const std::string& path) {
  btDefaultSerializer serializer;
  world.serialize(&serializer);
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(serializer.getBufferPointer()), serializer.getCurrentBufferSize());
  if (!file) throw std::runtime_error(fmt::format("cannot write {}", path));
}

#if PROPIMPACT_HAVE_WORLD_IMPORTER

bool haveWorldImporter() { return true; }

namespace {

/// A .bullet header is "BULLET", 'd' or 'f' (btScalar), '-' or '_' (pointer
/// size), 'v' or 'V' (endianness) and a three-digit version.
constexpr std::size_t kHeaderSize = 12;
/// Larger files are refused before parsing (btBulletFile takes an int length).
constexpr std::size_t kMaxFileSize = std::size_t(1) << 30;
/// A child import taking longer than this is treated as a hang.
constexpr unsigned kProbeSeconds = 60;
/// Exit codes of the probing child.
constexpr int kProbeImported = 0;
constexpr int kProbeRefused = 10;

std::vector<char> readFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw BadWorldFile(fmt::format("{}: cannot open ({})", path, std::strerror(errno)));
  const std::streamoff size = file.tellg();
  if (size < 0 || std::size_t(size) > kMaxFileSize)
    throw BadWorldFile(fmt::format("{}: not a .bullet file (size {} bytes)", path, size));
  std::vector<char> bytes(static_cast<std::size_t>(size));
  file.seekg(0);
  file.read(bytes.data(), size);
  if (!file) throw BadWorldFile(fmt::format("{}: read error", path));
  return bytes;
}

void checkHeader(const std::vector<char>& bytes, const std::string& path) {
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), "BULLET", 6) != 0)
    throw BadWorldFile(fmt::format("{}: not a .bullet file (no BULLET header)", path));
  const char scalar = bytes[6], pointer = bytes[7], endian = bytes[8];
  const bool digits = std::isdigit(static_cast<unsigned char>(bytes[9])) &&
                      std::isdigit(static_cast<unsigned char>(bytes[10])) &&
                      std::isdigit(static_cast<unsigned char>(bytes[11]));
  if ((scalar != 'd' && scalar != 'f') || (pointer != '-' && pointer != '_') || (endian != 'v' && endian != 'V') ||
      !digits)
    throw BadWorldFile(fmt::format("{}: not a .bullet file (bad header '{}')", path, std::string(bytes.data(), 12)));
}

std::uint32_t readInt(const std::vector<char>& bytes, std::size_t at, bool swap) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  if (swap) value = (value >> 24U) | ((value >> 8U) & 0xff00U) | ((value << 8U) & 0xff0000U) | (value << 24U);
  return value;
}

/// Walks the chunk list (code, length, old pointer, DNA index, count) and
/// refuses a file whose chunks run past its end or that has no DNA1 chunk:
/// Bullet's parser would read past the buffer. Every truncation of a file is
/// caught here (the serializer writes the DNA1 chunk last).
void checkChunks(const std::vector<char>& bytes, const std::string& path) {
  const bool pointer8 = bytes[7] == '-';
  const bool fileLittle = bytes[8] == 'v';
  const std::uint16_t probe = 1;
  const bool hostLittle = *reinterpret_cast<const unsigned char*>(&probe) == 1;
  const std::size_t headerSize = pointer8 ? 24 : 20;
  bool dna = false;
  std::size_t at = kHeaderSize;
  while (at < bytes.size()) {
    if (bytes.size() - at < headerSize)
      throw BadWorldFile(fmt::format("{}: truncated (a chunk header is cut off at byte {})", path, at));
    const bool end = std::memcmp(bytes.data() + at, "ENDB", 4) == 0;
    dna = dna || std::memcmp(bytes.data() + at, "DNA1", 4) == 0;
    const std::uint32_t length = readInt(bytes, at + 4, fileLittle != hostLittle);
    if (end) break;
    if (length > bytes.size() - at - headerSize)
      throw BadWorldFile(
          fmt::format("{}: truncated or corrupt (a {}-byte chunk at byte {} runs past the end, {} bytes)", path, length,
                      at, bytes.size()));
    at += headerSize + length;
  }
  if (!dna) throw BadWorldFile(fmt::format("{}: truncated or corrupt (no DNA1 block)", path));
}

/// Redirects stdout to /dev/null while alive: the importer prints its
/// complaints with printf, which would land in a CSV written to stdout.
class StdoutSilenced {
 public:
  StdoutSilenced() {
    std::fflush(stdout);
    m_saved = dup(STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      close(null);
    }
  }
  ~StdoutSilenced() {
    std::fflush(stdout);
    if (m_saved >= 0) {
      dup2(m_saved, STDOUT_FILENO);
      close(m_saved);
    }
  }
  StdoutSilenced(const StdoutSilenced&) = delete;
  StdoutSilenced& operator=(const StdoutSilenced&) = delete;

 private:
  int m_saved = -1;
};

/// The importer, recording the rigid bodies it creates in creation order,
/// which is the order of the file's rigid-body records.
class RecordingImporter : public btBulletWorldImporter {
 public:
  using btBulletWorldImporter::btBulletWorldImporter;
  btRigidBody* createRigidBody(bool isDynamic, btScalar mass, const btTransform& startTransform,
                               btCollisionShape* shape, const char* bodyName) override {
    btRigidBody* body = btBulletWorldImporter::createRigidBody(isDynamic, mass, startTransform, shape, bodyName);
    created.push_back(body);
    return body;
  }
  std::vector<btRigidBody*> created;
};

btVector3 toVector(const btVector3FloatData& data) {
  btVector3 v;
  v.deSerializeFloat(data);
  return v;
}
btVector3 toVector(const btVector3DoubleData& data) {
  btVector3 v;
  v.deSerializeDouble(data);
  return v;
}

/// Puts back what the importer drops from one rigid-body record.
template <class RigidBodyData>
void restoreBody(btRigidBody& body, const RigidBodyData& data) {
  body.setDamping(btScalar(data.m_linearDamping), btScalar(data.m_angularDamping));
  body.setLinearFactor(toVector(data.m_linearFactor));
  body.setAngularFactor(toVector(data.m_angularFactor));
  const int activation = data.m_collisionObjectData.m_activationState1;
  if (activation >= ACTIVE_TAG && activation <= DISABLE_SIMULATION) body.forceActivationState(activation);
  if (body.getInvMass() <= 0) return;
  // Inertia: the importer recomputes it from the shape; a user's own inertia
  // (beyond the file's round-off) is put back.
  const btVector3 fileInverse = toVector(data.m_invInertiaLocal), ours = body.getInvInertiaDiagLocal();
  constexpr double kInertiaRelativeTolerance = 1e-6;
  bool differs = false;
  for (int k = 0; k < 3; ++k)
    differs = differs || std::abs(double(fileInverse[k]) - double(ours[k])) >
                             kInertiaRelativeTolerance * std::max(std::abs(double(ours[k])), 1e-300);
  if (differs) {
    btVector3 inertia;
    for (int k = 0; k < 3; ++k) inertia[k] = fileInverse[k] > 0 ? btScalar(1) / fileInverse[k] : btScalar(0);
    body.setMassProps(btScalar(1) / body.getInvMass(), inertia);
    body.updateInertiaTensor();
  }
  body.setLinearVelocity(toVector(data.m_linearVelocity));
  body.setAngularVelocity(toVector(data.m_angularVelocity));
}

}  // namespace

struct ImportState {
  std::vector<char> bytes;
  std::unique_ptr<bParse::btBulletFile> file;
  std::unique_ptr<RecordingImporter> importer;
  /// Takes the importer's bodies, shapes and constraints out of the world
  /// and frees them; runs before the World goes (also when loading throws).
  ~ImportState() {
    if (importer) importer->deleteAllData();
  }
};

namespace {

/// Parses and converts \p bytes into \p world; returns a reason when refused.
std::string importInto(ImportState& in, btDiscreteDynamicsWorld& world) {
  in.file = std::make_unique<bParse::btBulletFile>(in.bytes.data(), static_cast<int>(in.bytes.size()));
  if (!in.file->ok()) return "not a valid .bullet file (header or DNA rejected)";
  in.importer = std::make_unique<RecordingImporter>(&world);
  StdoutSilenced silenced;
  if (!in.importer->loadFileFromMemory(in.file.get())) return "the importer could not read it";
  if (!in.file->ok() || !in.file->getFileDNA()) return "truncated or corrupt (no readable DNA block)";
  if (in.file->m_multiBodies.size() > 0)
    return fmt::format(
        "{} btMultiBody record(s): only btRigidBody worlds are replayed (PyBullet: load with "
        "useMaximalCoordinates=True)",
        in.file->m_multiBodies.size());
  if (in.file->m_softBodies.size() > 0)
    return fmt::format("{} soft-body record(s): only btRigidBody worlds are replayed", in.file->m_softBodies.size());
  if (in.file->m_rigidBodies.size() == 0) return "no rigid-body record (truncated, or an empty world)";
  return {};
}

/// Imports a copy of \p bytes in a child process: true when the child
/// finished (either way), false with \p why when it crashed or hung.
bool importSurvives(const std::vector<char>& bytes, std::string& why) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return true;  // cannot probe: import in-process
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    alarm(kProbeSeconds);
    World world("bullet-si");
    ImportState in{bytes, nullptr, nullptr};
    _exit(importInto(in, world.dynamics()).empty() ? kProbeImported : kProbeRefused);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return true;
  if (WIFEXITED(status) && (WEXITSTATUS(status) == kProbeImported || WEXITSTATUS(status) == kProbeRefused)) return true;
  why = WIFSIGNALED(status) ? fmt::format("the importer crashed on it ({})", strsignal(WTERMSIG(status)))
                            : fmt::format("the importer failed on it (exit {})", WEXITSTATUS(status));
  return false;
}

template <class RigidBodyData>
void restoreAll(const bParse::btBulletFile& file, const std::vector<btRigidBody*>& bodies) {
  for (std::size_t i = 0; i < bodies.size(); ++i)
    restoreBody(*bodies[i], *reinterpret_cast<const RigidBodyData*>(file.m_rigidBodies[int(i)]));
}

}  // namespace

LoadedWorld::LoadedWorld(const std::string& path, const std::string& solverName)
    : m_world(std::make_unique<World>(solverName)), m_importer(std::make_unique<ImportState>()) {
  m_importer->bytes = readFile(path);
  checkHeader(m_importer->bytes, path);
  checkChunks(m_importer->bytes, path);
  std::string why;
  if (!importSurvives(m_importer->bytes, why))
    throw BadWorldFile(fmt::format("{}: truncated or corrupt: {}", path, why));
  btDiscreteDynamicsWorld& dynamics = m_world->dynamics();
  dynamics.setGravity(btVector3(0, -10, 0));  // a fresh btDiscreteDynamicsWorld's gravity
  why = importInto(*m_importer, dynamics);
  if (!why.empty()) throw BadWorldFile(fmt::format("{}: {}", path, why));
  const bParse::btBulletFile& file = *m_importer->file;
  m_bodies = m_importer->importer->created;
  const int records = file.m_rigidBodies.size();
  if (int(m_bodies.size()) != records)
    throw BadWorldFile(fmt::format("{}: {} of {} rigid bodies have a shape type the importer cannot build", path,
                                   records - int(m_bodies.size()), records));
  const int constraints = file.m_constraints.size();
  if (m_importer->importer->getNumConstraints() != constraints)
    throw BadWorldFile(fmt::format("{}: {} of {} constraints are of a type the importer cannot build", path,
                                   constraints - m_importer->importer->getNumConstraints(), constraints));
  m_doubleFile = (file.getFlags() & bParse::FD_DOUBLE_PRECISION) != 0;
  m_gravityFromFile = file.m_dynamicsWorldInfo.size() > 0;
  if (m_doubleFile)
    restoreAll<btRigidBodyDoubleData>(file, m_bodies);
  else
    restoreAll<btRigidBodyFloatData>(file, m_bodies);
  bool dynamic = false;
  for (const btRigidBody* body : m_bodies) dynamic = dynamic || body->getInvMass() > 0;
  if (!dynamic) throw BadWorldFile(fmt::format("{}: the world has no dynamic body", path));
  // The importer took the file's solver settings; a solver that needs its own keeps them.
  applySolverInfo(solverName, dynamics.getSolverInfo());
}

LoadedWorld::~LoadedWorld() = default;

#else  // no importer in this build

bool haveWorldImporter() { return false; }

struct ImportState {};

LoadedWorld::LoadedWorld(const std::string& path, const std::string&) {
  throw BadWorldFile(
      fmt::format("{}: this build has no Bullet importer (install libbullet-extras-dev and "
                  "reconfigure) so it cannot replay .bullet files",
                  path));
}

LoadedWorld::~LoadedWorld() = default;

#endif

}  // namespace propimpact::scenes

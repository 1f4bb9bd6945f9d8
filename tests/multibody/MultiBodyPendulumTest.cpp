// Two revolute pendulums exchanging elastically (issue 13, item 4): two
// fixed-base multibodies, each one revolute joint with a ball, hang touching;
// the first is released from θ0 and hits the second at the bottom. With
// equal pendulums every impact hands the whole swing over, and every impact
// keeps the energy of its cluster exactly.
//
// Where the swinging pendulum's amplitude goes (measured at θ0 = 0.3, double
// build; the test prints the 240 Hz numbers):
// - The impacts keep the pair's energy. Bullet integrates a multibody with
//   symplectic Euler, a leapfrog whose velocity is stored half a step late;
//   the energy it keeps is the one at the synchronised velocity
//   v + ½ dt a(q). That energy of both pendulums together stays within
//   4.21e-5 of its start over 20 exchanges, as does one pendulum swinging
//   freely for as long (4.21e-5): the impacts and the solver's kick–reflect–
//   kick add nothing measurable to the integrator's own error. Swinging with
//   the pair's whole energy, one pendulum's amplitude would stay within
//   2.1e-5 of θ0, far inside the 0.1 %.
// - The swinging pendulum's own amplitude falls by 1.6e-3 after 20 exchanges
//   (1.0e-3 after 16), quadratically, because energy builds up in the
//   other pendulum. An impact is resolved at a step boundary. At 240 Hz the
//   balls first touch 0.79 of a step into the step of each exchange (gap
//   3.06e-3 m at its start, closing 3.89e-3 m per step), so the nearer
//   boundary is the next step, after the overlap: the hitter is stopped 0.21
//   of a step past the contact (8.3e-4 rad). It stops there, correctly at the
//   velocity level, and swings with that small amplitude about its bottom.
//   Its half period (1.005 s for a small swing) nearly equals the exchange
//   period (243 steps, 1.0125 s), so at every later exchange the stopped
//   pendulum is again left that fraction past its contact, on the side its
//   residual swing already has: the residual amplitude grows by the same
//   8.3e-4 rad per exchange (1.72e-2 rad, 0.35 % of the energy, after 20).
// - The loss goes with the square of that offset. Waiting for the overlap,
//   the hitter is stopped 0.93 and 0.35 of a step past the contact at 480
//   and 960 Hz (1.81e-3 and 3.45e-4 rad) and the amplitude falls by 7.6e-3
//   and 2.7e-4 after 20 exchanges: 2.28e3 to 2.33e3 times the offset squared
//   at all three rates, while the pair's energy keeps to 1.1e-5 and 2.6e-6.
// - So the solver locates each impact to the nearer step boundary
//   (MultiBodyGroup.h): a reflecting point not yet touching whose gap the
//   step's motion closes in its first half is an impact at the step's start. Bullet's
//   sphere–sphere algorithm keeps no such point; the solver's closest-point
//   query finds it. At 480 Hz the contact falls 0.07 of a step into its step,
//   the hitter stops that far before it, and the loss over 20 exchanges is
//   4.0e-5 instead of 7.6e-3 (ImpactsAreLocatedToTheNearerStepBoundary). At
//   240 Hz and 960 Hz the overlap is already the nearer boundary and nothing
//   changes. The side does not matter, only the distance: resolving every
//   crossing at its step's start (0.79 of a step early at 240 Hz, tried by
//   hand) loses 2.0e-2, the same law.
// - What is left at 240 Hz is below a step's resolution: no velocity-level
//   outcome at a step boundary can put the hitter where the contact began.
//   Moving both pendulums as if the impact had happened at first touch
//   (positions only, done by hand after the step in a trial) stops the
//   build-up but adds energy (+8.5e-4 in amplitude, +1.6e-3 in energy after
//   20 exchanges): the moved pendulum's velocity keeps the gravity of where
//   it was, an error of the size of m g L q Δq (q its angle, Δq the move).
//   Backdating the impact without that error needs the forces at the moved
//   configuration, which the solver does not compute: it knows the step's kick
//   only as a velocity change (KickMemory.h). So the 240 Hz tolerance stays
//   above the 1e-3.
// Stock Bullet's multibody solver is printed for the same scene.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kTheta0 = 0.3;
constexpr double kGravity = 9.81;
constexpr int kExchanges = 20;
/// The swinging pendulum's amplitude (measured 1.59e-3, see the file comment).
constexpr double kAmplitudeTolerance = 2e-3;
/// At 480 Hz, where the impact is resolved 0.07 of a step early (measured
/// 4.0e-5 in double, 3.9e-5 in float; 7.6e-3 waiting for the overlap).
constexpr double kAmplitudeTolerance480 = 1e-4;
/// The 0.1 %, on the amplitude the pair's whole energy would give one pendulum.
constexpr double kEnergyAmplitudeTolerance = 1e-3;
/// The pair's energy error beyond a free swing's over the same time (measured
/// −3e-10 in double, 3.5e-6 in float, whose energies come from float velocities).
constexpr double kBeyondFreeSwing = sizeof(btScalar) == 8 ? 1e-6 : 1e-4;
/// The amplitude the swinging pendulum's energy share gives, against its
/// sampled largest angle (sampling at 240 Hz near the turning point).
constexpr double kAccountingTolerance = 1e-4;

/// One pendulum's energy with Bullet's velocity synchronised to its position.
struct Pendulum {
  double inertia = 0;  // about the pivot
  double weight = 0;   // m g L
  double dt = kDt;

  explicit Pendulum(const testing::LinkSpec& link, double step = kDt)
      : inertia(link.mass * (link.length * link.length + 0.4 * link.radius * link.radius)),
        weight(link.mass * kGravity * link.length),
        dt(step) {}

  [[nodiscard]] double energy(const btMultiBody& body) const {
    const double q = body.getJointPos(0);
    // Bullet's velocity is half a step behind its position (symplectic Euler).
    const double v = body.getJointVel(0) - 0.5 * dt * weight * std::sin(q) / inertia;
    return 0.5 * inertia * v * v + weight * (1 - std::cos(q));
  }
  [[nodiscard]] double amplitude(double energy) const { return std::acos(1 - std::min(energy / weight, 2.0)); }
};

struct Exchanges {
  std::vector<double> amplitudes;       // the swinging pendulum's largest angle between impacts
  std::vector<double> shareAmplitudes;  // the amplitude its energy share gives (pair minus the other's)
  int clusters = 0;
  double worstEnergyError = 0;    // per impact cluster, relative
  double worstPairEnergy = 0;     // |E_pair/E0 − 1| over the run
  double worstPairAmplitude = 0;  // |amplitude(E_pair)/θ0 − 1| over the run
  double residualShare = 0;       // the stopped pendulum's energy share at the last exchange
  // The balls' gap (centre distance − 2r) at the start of each impact step:
  // > 0 when the impact was resolved before they touched, < 0 after overlap.
  double smallestImpactGap = 1, largestImpactGap = -1;
  int steps = 0;
};

/// Centre distance minus 2r of the two balls (pivots 2r apart along x).
double gap(const btMultiBody& a, const btMultiBody& b, const testing::LinkSpec& link) {
  const double qa = a.getJointPos(0), qb = b.getJointPos(0);
  const double dx = 2 * link.radius + link.length * (std::sin(qa) - std::sin(qb));
  const double dz = link.length * (std::cos(qa) - std::cos(qb));
  return std::hypot(dx, dz) - 2 * link.radius;
}

Exchanges run(bool propagative, int exchanges, double dt = kDt) {
  testing::MultiBodyWorld w(propagative, btVector3(0, 0, btScalar(-kGravity)));
  testing::LinkSpec link;
  const Pendulum pendulum(link, dt);
  // θ about +y moves a ball to −x: A swings out to the left, B hangs to its right.
  btMultiBody* a = w.addPendulum(btVector3(0, 0, 2), link, kTheta0);
  btMultiBody* b = w.addPendulum(btVector3(btScalar(2 * link.radius), 0, 2), link, 0);
  const double e0 = pendulum.energy(*a) + pendulum.energy(*b);
  Exchanges out;
  double amplitude = 0, share = 0;
  int impacts = 0;
  const int maxSteps = static_cast<int>((exchanges + 2) * 1.2 / dt);
  for (int k = 0; k < maxSteps && impacts <= exchanges; ++k, ++out.steps) {
    const double gapBefore = gap(*a, *b, link);
    w.step(dt);
    int clusters = 0;
    if (propagative) clusters = static_cast<int>(w.solver().lastStepReport().clusters.size());
    out.clusters += clusters;
    if (propagative)
      for (const ClusterReport& c : w.solver().lastStepReport().clusters)
        out.worstEnergyError = std::max(out.worstEnergyError, std::abs(c.energyAfter / c.energyBefore - 1));
    const double ea = pendulum.energy(*a), eb = pendulum.energy(*b);
    out.worstPairEnergy = std::max(out.worstPairEnergy, std::abs((ea + eb) / e0 - 1));
    out.worstPairAmplitude = std::max(out.worstPairAmplitude, std::abs(pendulum.amplitude(ea + eb) / kTheta0 - 1));
    const double qa = a->getJointPos(0), qb = b->getJointPos(0);
    // An exchange is where the swinging pendulum changes: the impact step
    // (ours reports it; for stock, the moment both are near the bottom).
    const bool impact = propagative ? clusters > 0
                                    : (std::abs(qa) < 0.02 && std::abs(qb) < 0.02 && amplitude > 0.05);
    if (impact) {
      out.smallestImpactGap = std::min(out.smallestImpactGap, gapBefore);
      out.largestImpactGap = std::max(out.largestImpactGap, gapBefore);
      if (impacts > 0) {
        out.amplitudes.push_back(amplitude);
        out.shareAmplitudes.push_back(share);
      }
      ++impacts;
      amplitude = 0;
    }
    const bool aSwings = std::abs(qa) > std::abs(qb);
    if (std::max(std::abs(qa), std::abs(qb)) > amplitude) {
      amplitude = std::max(std::abs(qa), std::abs(qb));
      // At the turning point: the pair's energy minus what the other pendulum holds.
      const double residual = aSwings ? eb : ea;
      share = pendulum.amplitude(ea + eb - residual);
      out.residualShare = residual / e0;
    }
  }
  return out;
}

/// One pendulum swinging freely for \p steps: the integrator's own error.
double freeSwingEnergyError(int steps, double dt = kDt) {
  testing::MultiBodyWorld w(true, btVector3(0, 0, btScalar(-kGravity)));
  testing::LinkSpec link;
  const Pendulum pendulum(link, dt);
  btMultiBody* a = w.addPendulum(btVector3(0, 0, 2), link, kTheta0);
  const double e0 = pendulum.energy(*a);
  double worst = 0;
  for (int k = 0; k < steps; ++k) {
    w.step(dt);
    worst = std::max(worst, std::abs(pendulum.energy(*a) / e0 - 1));
  }
  return worst;
}

TEST(MultiBodyPendulums, ElasticExchangeKeepsAmplitudeOverTwentyExchanges) {
  const Exchanges ours = run(true, kExchanges);
  const Exchanges stock = run(false, 10);
  ASSERT_GE(ours.amplitudes.size(), std::size_t(kExchanges));
  double worst = 0, worstAccounting = 0;
  for (std::size_t i = 0; i < std::size_t(kExchanges); ++i) {
    worst = std::max(worst, std::abs(ours.amplitudes[i] / kTheta0 - 1));
    worstAccounting = std::max(worstAccounting, std::abs(ours.shareAmplitudes[i] / ours.amplitudes[i] - 1));
  }
  fmt::print("multibody pendulums, 240 Hz: {} impact clusters, amplitude after exchange 1 {:.6f}, 20 {:.6f}, worst "
             "|amp/theta0 - 1| {:.3e}; stock:",
             ours.clusters, ours.amplitudes.front(), ours.amplitudes[kExchanges - 1], worst);
  for (const double amp : stock.amplitudes) fmt::print(" {:.4f}", amp);
  fmt::print("\n ours:");
  for (const double amp : ours.amplitudes) fmt::print(" {:.6f}", amp);
  fmt::print("\n worst cluster energy error {:.3e}; the stopped pendulum holds {:.3e} of the energy at exchange {}, "
             "which accounts for the amplitude to {:.3e}\n",
             ours.worstEnergyError, ours.residualShare, kExchanges, worstAccounting);
  EXPECT_LE(ours.worstEnergyError, testing::kExact);
  EXPECT_LE(worst, kAmplitudeTolerance);
  // The drift is the energy the stopped pendulum holds, not energy lost.
  EXPECT_LE(worstAccounting, kAccountingTolerance);
  // The scene tells the solvers apart: stock Bullet's amplitude drifts by percents.
  ASSERT_FALSE(stock.amplitudes.empty());
  EXPECT_GT(std::abs(stock.amplitudes.back() / kTheta0 - 1), 0.01);
}

TEST(MultiBodyPendulums, ElasticExchangesKeepThePairsEnergyAsAFreeSwingDoes) {
  const Exchanges ours = run(true, kExchanges);
  const double free = freeSwingEnergyError(ours.steps);
  fmt::print("multibody pendulums, 240 Hz, {} steps: pair energy within {:.6e} (free swing {:.6e}, "
             "difference {:.2e}), amplitude of the pair's energy within {:.3e} of theta0\n",
             ours.steps, ours.worstPairEnergy, free, ours.worstPairEnergy - free, ours.worstPairAmplitude);
  EXPECT_LE(ours.worstPairEnergy, free + kBeyondFreeSwing);
  EXPECT_LE(ours.worstPairAmplitude, kEnergyAmplitudeTolerance);
}

// Event location to the nearer step boundary. At 480 Hz the balls first
// touch 0.07 of a step into the step of each exchange: the impact is resolved
// at that step's start, from the closest points Bullet's sphere–sphere
// algorithm does not keep, instead of 0.93 of a step past the contact
// after the overlap (7.60e-3 amplitude loss that way). At 240 Hz the contact
// falls 0.79 into its step and the impact stays after the overlap.
TEST(MultiBodyPendulums, ImpactsAreLocatedToTheNearerStepBoundary) {
  const Exchanges fast = run(true, kExchanges, 1.0 / 480);
  ASSERT_GE(fast.amplitudes.size(), std::size_t(kExchanges));
  double worst = 0;
  for (std::size_t i = 0; i < std::size_t(kExchanges); ++i)
    worst = std::max(worst, std::abs(fast.amplitudes[i] / kTheta0 - 1));
  const double free = freeSwingEnergyError(fast.steps, 1.0 / 480);
  const Exchanges slow = run(true, kExchanges);
  fmt::print("multibody pendulums, 480 Hz: worst |amp/theta0 - 1| {:.3e} over {} exchanges, gap at the impact steps "
             "[{:.3e}, {:.3e}] m (240 Hz: [{:.3e}, {:.3e}] m), pair energy within {:.3e} (free swing {:.3e})\n",
             worst, kExchanges, fast.smallestImpactGap, fast.largestImpactGap, slow.smallestImpactGap,
             slow.largestImpactGap, fast.worstPairEnergy, free);
  EXPECT_GT(fast.smallestImpactGap, 0) << "480 Hz: an impact waited for the overlap";
  EXPECT_LT(slow.largestImpactGap, 0) << "240 Hz: an impact was resolved before the nearer boundary";
  EXPECT_LE(worst, kAmplitudeTolerance480);
  EXPECT_LE(fast.worstEnergyError, testing::kExact);
  EXPECT_LE(fast.worstPairEnergy, free + kBeyondFreeSwing);
}

}  // namespace
}  // namespace propimpact

#!/usr/bin/env python3
"""The 1-D model quoted in MultiBodyPendulumTest.cpp's comment (not a test).

Two equal pendulums in angle coordinates (a = -g/L sin q), A released from
0.3 rad into B hanging at 0, contact when A's angle reaches B's; equal masses
exchange their velocities. Bullet's step is symplectic Euler (kick, then drift);
the energy is taken with the velocity synchronised to the position, as the test
does. Three ways of handling a contact that closes a fraction s into a step:
  boundary: resolved at the step after the overlap (s = 0 there), as the solver does;
  start:    resolved where it closes, velocity v_mid + s dv_free, bodies moved by
            -s dt dv, the step's force taken at its start (commit 1e24fab);
  verlet:   the two fractions of the step as velocity-Verlet sub-steps with the
            forces at the contact and at the step's end configuration.
Prints the pair's worst energy error over 20 exchanges at 240 Hz for each, and
for one impact of linear pendulums the 'start' scheme's energy change against
(w dt)^2 s (2s - 1).
"""
import math

G_OVER_L, H, THETA0, EXCHANGES = 9.81, 1 / 240, 0.3, 20


def acc(q, linear=False):
    return -G_OVER_L * (q if linear else math.sin(q))


def energy(q, v, linear=False):
    w = v + 0.5 * H * acc(q, linear)  # Bullet's velocity is half a step late
    return 0.5 * w * w + G_OVER_L * (0.5 * q * q if linear else 1 - math.cos(q))


def impact(scheme, q, v, k, s):
    """One exchange at fraction s; q, v, k: [A, B] angles, stored velocities, kicks."""
    mid = [v[i] - 0.5 * k[i] for i in range(2)]
    if scheme == "boundary":
        return q, [v[i] + mid[1 - i] - mid[i] for i in range(2)]
    if scheme == "start":
        t = [mid[i] + s * k[i] for i in range(2)]
        dv = [t[1 - i] - t[i] for i in range(2)]
        return [q[i] - s * H * dv[i] for i in range(2)], [v[i] + dv[i] for i in range(2)]
    contact = [q[i] + s * H * v[i] for i in range(2)]
    a_c = [acc(x) for x in contact]
    t = [mid[i] + 0.5 * s * H * (k[i] / H + a_c[i]) for i in range(2)]
    after = [t[1], t[0]]
    rest = (1 - s) * H
    end = [contact[i] + rest * (after[i] + 0.5 * rest * a_c[i]) for i in range(2)]
    stored = [after[i] + 0.5 * rest * a_c[i] - 0.5 * s * H * acc(end[i]) for i in range(2)]
    return [end[i] - H * stored[i] for i in range(2)], stored  # Bullet's drift lands on end


def run(scheme):
    q, v = [THETA0, 0.0], [0.0, 0.0]
    e0 = energy(q[0], v[0]) + energy(q[1], v[1])
    impacts, worst = 0, 0.0
    while impacts <= EXCHANGES:
        k = [H * acc(x) for x in q]
        v = [v[i] + k[i] for i in range(2)]
        gap, closing = q[0] - q[1], v[1] - v[0]
        located = gap <= 0 if scheme == "boundary" else closing * H > gap
        if closing > 0 and located:
            q, v = impact(scheme, q, v, k, max(0.0, gap / (closing * H)))
            impacts += 1
        q = [q[i] + H * v[i] for i in range(2)]
        worst = max(worst, abs((energy(q[0], v[0]) + energy(q[1], v[1])) / e0 - 1))
    return worst


def one_impact(s, u=0.9):
    q = [s * H * u, 0.0]
    k = [H * acc(q[0], True), 0.0]
    v = [-u + 0.5 * k[0], 0.0]
    e0 = energy(q[0], v[0] - k[0], True)  # before the step's kick: synchronised velocity -u
    s = q[0] / ((v[1] - v[0]) * H)
    q, v = impact("start", q, v, k, s)
    q = [q[i] + H * v[i] for i in range(2)]
    return (energy(q[0], v[0], True) + energy(q[1], v[1], True)) / e0 - 1, G_OVER_L * H * H * s * (2 * s - 1)


for name in ("boundary", "start", "verlet"):
    print(f"{name:8s} pair energy within {run(name):.4e} over {EXCHANGES} exchanges")
for s in (0.1, 0.3, 0.79, 0.95):
    measured, predicted = one_impact(s)
    print(f"one impact at s = {s}: energy change {measured:+.4e}, (w dt)^2 s (2s - 1) = {predicted:+.4e}")

#pragma once
/// \file ReportFormat.h
/// fmt formatters so a step report logs in one line:
/// `fmt::print("{}\n", solver.lastStepReport());`

#include <fmt/format.h>

#include "propimpact/bullet/StepReport.h"

template <>
struct fmt::formatter<propimpact::ClusterReport> {
  constexpr auto parse(format_parse_context& ctx) { return ctx.begin(); }
  template <typename Context>
  auto format(const propimpact::ClusterReport& c, Context& ctx) const {
    auto out = fmt::format_to(ctx.out(),
                              "cluster(substep {}, {} bodies, {} contacts, {} reflections, E {:.9g} -> {:.9g} J, R {:.3g}, "
                              "certificate: {}",
                              c.substep, c.bodies.size(), c.contacts.size(), c.reflections, c.energyBefore,
                              c.energyAfter, c.restitution, propimpact::toString(c.certificate));
    if (c.xiComputed) out = fmt::format_to(out, ", xi {:.3g} over {}", c.xi, propimpact::toString(c.xiOrders));
    if (c.capHit)
      out = fmt::format_to(out, ", CAP {}, fallback {}", c.capForeseen ? "FORESEEN" : "HIT",
                           propimpact::toString(c.fallback));
    if (c.friction != propimpact::FrictionOutcome::NotNeeded)
      out = fmt::format_to(out, ", friction {}", propimpact::toString(c.friction));
    return fmt::format_to(out, ")");
  }
};

template <>
struct fmt::formatter<propimpact::StepReport> {
  constexpr auto parse(format_parse_context& ctx) { return ctx.begin(); }
  template <typename Context>
  auto format(const propimpact::StepReport& r, Context& ctx) const {
    auto out = fmt::format_to(ctx.out(), "step({} substeps, {} impact clusters, {} resting contacts, {} cap hits",
                              r.substeps, r.clusters.size(), r.restingContacts, r.capHits);
    if (r.droppedClusters > 0) out = fmt::format_to(out, ", {} clusters dropped (report not read)", r.droppedClusters);
    if (r.restitutionClamped > 0)
      out = fmt::format_to(out, ", {} contacts with restitution outside [0, 1] clamped", r.restitutionClamped);
    if (r.frictionClamped > 0)
      out = fmt::format_to(out, ", {} contacts with NaN or negative friction taken as 0", r.frictionClamped);
    for (const auto& w : r.restitutionWarnings)
      out = fmt::format_to(out, ", restitution {:.3g} of pair {} / {} clamped to [0, 1]", w.combined,
                           static_cast<const void*>(w.bodyA), static_cast<const void*>(w.bodyB));
    for (const auto& rejected : r.rejected)
      out = fmt::format_to(out, ", rejected body {}: {}", static_cast<const void*>(rejected.body), rejected.reason);
    for (const auto& cluster : r.clusters) out = fmt::format_to(out, "; {}", cluster);
    return fmt::format_to(out, ")");
  }
};

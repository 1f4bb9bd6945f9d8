#pragma once
// A cluster's entry in the step report, the same for both drop-in solvers:
// kept while the report has room, counted as dropped once it reaches
// SolverSettings::reportClusterCap unread (an application that never reads
// the report does not grow without bound).

#include "propimpact/bullet/SolverSettings.h"
#include "propimpact/bullet/StepReport.h"
#include "propimpact/core/ImpactResult.h"

namespace propimpact::bullet_detail {

/// Appends the cluster resolved as \p result in \p substep and returns it to be
/// completed with its bodies and contacts, or returns nullptr when the report
/// is not kept or full (and counts the cluster as dropped then). Cap hits are counted either way.
inline ClusterReport* beginClusterReport(StepReport& report, const SolverSettings& settings, const ImpactResult& result,
                                         int substep) {
  if (result.capHit) ++report.capHits;
  if (!settings.keepReport) return nullptr;
  if (report.clusters.size() >= settings.reportClusterCap) {
    ++report.droppedClusters;
    return nullptr;
  }
  ClusterReport& cluster = report.clusters.emplace_back();
  cluster.substep = substep;
  cluster.reflections = result.reflections;
  cluster.energyBefore = result.energyBefore;
  cluster.energyAfter = result.energyAfter;
  cluster.restitution = result.restitution;
  cluster.xiComputed = result.xiComputed;
  cluster.xi = result.xi;
  cluster.xiOrders = result.xiOrders;
  cluster.certificate = result.certificate;
  cluster.capHit = result.capHit;
  cluster.capForeseen = result.capForeseen;
  cluster.fallback = result.fallback;
  return &cluster;
}

}  // namespace propimpact::bullet_detail

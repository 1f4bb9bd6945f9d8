#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact {

const char* toString(OrderingPolicy policy) {
  switch (policy) {
    case OrderingPolicy::MostApproaching: return "most-approaching";
    case OrderingPolicy::LeastApproaching: return "least-approaching";
    case OrderingPolicy::IndexOrder: return "index-order";
    case OrderingPolicy::ReverseIndexOrder: return "reverse-index-order";
    case OrderingPolicy::SeededRandom: return "seeded-random";
  }
  return "unknown";
}

const char* toString(XiOrderSet set) {
  switch (set) {
    case XiOrderSet::MostVersusLeast: return "most-vs-least";
    case XiOrderSet::AllPolicies: return "all-policies";
    case XiOrderSet::AllOrders: return "all-orders";
  }
  return "unknown";
}

const char* toString(UniquenessCertificate certificate) {
  switch (certificate) {
    case UniquenessCertificate::None: return "none";
    case UniquenessCertificate::NotAnalysed: return "not-analysed";
    case UniquenessCertificate::Trivial: return "trivial";
    case UniquenessCertificate::Orthogonal: return "orthogonal (Thm 2)";
    case UniquenessCertificate::ThirdOfPi: return "two contacts at -1/2 (Thm 3)";
    case UniquenessCertificate::AllOrdersAgree: return "all orders agree";
  }
  return "unknown";
}

const char* toString(Fallback fallback) {
  switch (fallback) {
    case Fallback::None: return "none";
    case Fallback::PlasticFromCapped: return "plastic-from-capped-state";
    case Fallback::PlasticFromStart: return "plastic-from-start";
  }
  return "unknown";
}

}  // namespace propimpact

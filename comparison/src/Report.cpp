#include "Studies.h"
namespace propimpact::compare {
std::string writeReport(const std::string&, const std::string&) { return {}; }
}

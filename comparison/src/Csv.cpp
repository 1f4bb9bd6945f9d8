#include "Csv.h"

#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <tuple>
#include <sstream>
#include <stdexcept>

namespace propimpact::compare {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream stream(line);
  while (std::getline(stream, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::string join(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += fields[i];
  }
  return line;
}

}  // namespace

std::size_t Table::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw std::runtime_error(fmt::format("no column '{}'", name));
  return static_cast<std::size_t>(it - header.begin());
}

double Table::number(std::size_t row, const std::string& name) const { return std::stod(text(row, name)); }

const std::string& Table::text(std::size_t row, const std::string& name) const { return rows.at(row).at(column(name)); }

void writeCsv(const Table& table, const std::string& path) {
  std::string out = join(table.header) + '\n';
  for (const auto& row : table.rows) out += join(row) + '\n';
  if (path.empty() || path == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(fmt::format("cannot write '{}'", path));
  file << out;
  if (!file) throw std::runtime_error(fmt::format("error writing '{}'", path));
}

Table readCsv(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(fmt::format("cannot read '{}'", path));
  Table table;
  std::string line;
  if (!std::getline(file, line)) throw std::runtime_error(fmt::format("'{}' is empty", path));
  table.header = split(line);
  std::size_t number = 1;
  while (std::getline(file, line)) {
    ++number;
    if (line.empty()) continue;
    auto fields = split(line);
    if (fields.size() != table.header.size())
      throw std::runtime_error(fmt::format("{}:{}: {} fields, header has {}", path, number, fields.size(),
                                           table.header.size()));
    table.rows.push_back(std::move(fields));
  }
  return table;
}

Table mergeTables(const std::vector<Table>& tables) {
  if (tables.empty()) throw std::runtime_error("nothing to merge");
  const std::vector<std::string>& header = tables.front().header;
  const std::size_t cell = tables.front().column("cell");
  // (cell, table, row): a cell may own several rows (bounce), all from one shard.
  std::vector<std::tuple<long long, std::size_t, std::size_t>> keys;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    if (tables[t].header != header) throw std::runtime_error("cannot merge tables with different headers");
    for (std::size_t r = 0; r < tables[t].rows.size(); ++r) keys.emplace_back(std::stoll(tables[t].rows[r][cell]), t, r);
  }
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 1; i < keys.size(); ++i)
    if (std::get<0>(keys[i]) == std::get<0>(keys[i - 1]) && std::get<1>(keys[i]) != std::get<1>(keys[i - 1]))
      throw std::runtime_error(fmt::format("cell {} appears in two inputs", std::get<0>(keys[i])));
  Table merged;
  merged.header = header;
  for (const auto& [c, t, r] : keys) merged.rows.push_back(tables[t].rows[r]);
  return merged;
}

std::string formatNumber(double value) { return fmt::format("{}", value); }

}  // namespace propimpact::compare

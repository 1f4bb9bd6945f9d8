#pragma once
/// \file Csv.h
/// The harness's CSV tables: one header row, comma-separated, no quoting
/// (no value contains a comma). The first column of every study table is
/// `cell`, the cell's index in the full (unsharded) sweep, which is what
/// merge() sorts by.

#include <string>
#include <vector>

namespace propimpact::compare {

/// A CSV table held as text.
struct Table {
  std::vector<std::string> header;              ///< column names.
  std::vector<std::vector<std::string>> rows;   ///< values, one vector per row.

  /// Index of column \p name; throws std::runtime_error when absent.
  [[nodiscard]] std::size_t column(const std::string& name) const;
  /// Value of column \p name in row \p row as a double.
  [[nodiscard]] double number(std::size_t row, const std::string& name) const;
  /// Value of column \p name in row \p row as text.
  [[nodiscard]] const std::string& text(std::size_t row, const std::string& name) const;
};

/// Writes \p table to \p path ("-" or empty: standard output).
void writeCsv(const Table& table, const std::string& path);
/// Reads a table written by writeCsv. Throws std::runtime_error on a bad file.
[[nodiscard]] Table readCsv(const std::string& path);
/// Joins tables with identical headers, sorted by their `cell` column (rows of
/// one cell keep their order). Throws std::runtime_error on differing headers
/// or a cell present in two inputs.
[[nodiscard]] Table mergeTables(const std::vector<Table>& tables);

/// Shortest text that reads back as the same double (fmt's default).
[[nodiscard]] std::string formatNumber(double value);

}  // namespace propimpact::compare

#pragma once
/// \file ReusableArray.h
/// Eigen vectors and matrices that keep their capacity when their size changes.
///
/// A resolution's outcome (ImpactResult) is sized by its cluster: a step of a
/// game resolves clusters of ever new shapes, and Eigen's own dynamic vectors
/// free and allocate again at every change of size. A `ReusableArray` is an
/// `Eigen::Map` over storage it owns, which only grows: once a result has held
/// a cluster as large as the next one, resizing costs no heap allocation
/// (issue 12, item 5). Everything that reads an Eigen vector reads it
/// (element access, arithmetic, `norm`, `segment`, passing it as an Eigen
/// expression); `resize`, `setZero(n)` and assignment from an expression of
/// another size resize it as Eigen's own would.
///
/// The map is pointed at new storage by constructing it again in place, the
/// way Eigen's documentation changes a Map's array and Eigen's own `Ref`
/// constructs its `Map` base.

#include <Eigen/Core>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace propimpact {

template <typename Plain>
class ReusableArray : public Eigen::Map<Plain> {
  using Base = Eigen::Map<Plain>;
  using Element = typename Plain::Scalar;
  static constexpr bool kIsVector = Plain::ColsAtCompileTime == 1;

 public:
  ReusableArray() : Base(nullptr, 0, kIsVector ? 1 : 0) {}
  ReusableArray(const ReusableArray& other) : ReusableArray() { copyFrom(other); }
  ReusableArray(ReusableArray&& other) noexcept : ReusableArray() { takeFrom(other); }
  template <typename Derived>
  ReusableArray(const Eigen::DenseBase<Derived>& other) : ReusableArray() {  // NOLINT: converts like Eigen's own
    *this = other;
  }
  ~ReusableArray() = default;

  ReusableArray& operator=(const ReusableArray& other) {
    if (this != &other) copyFrom(other);
    return *this;
  }
  ReusableArray& operator=(ReusableArray&& other) noexcept {
    if (this != &other) takeFrom(other);
    return *this;
  }
  template <typename Derived>
  ReusableArray& operator=(const Eigen::DenseBase<Derived>& other) {
    resize(other.rows(), other.cols());
    Base::operator=(other.derived());
    return *this;
  }

  /// Resizes a vector; the contents are unspecified afterwards, as with Eigen's resize.
  void resize(Eigen::Index size) {
    static_assert(kIsVector, "resize(size) is for vectors; matrices take resize(rows, cols)");
    resize(size, 1);
  }
  void resize(Eigen::Index rows, Eigen::Index cols) {
    const std::size_t needed = static_cast<std::size_t>(rows * cols);
    if (m_storage.size() < needed) m_storage.resize(needed);
    reseat(rows, cols);
  }
  /// Room for \p entries coefficients without a reallocation (the size is unchanged).
  void reserve(Eigen::Index entries) {
    if (entries > 0 && m_storage.capacity() < static_cast<std::size_t>(entries))
      m_storage.reserve(static_cast<std::size_t>(entries));
  }
  using Base::setZero;
  ReusableArray& setZero(Eigen::Index size) {
    resize(size);
    Base::setZero();
    return *this;
  }
  ReusableArray& setZero(Eigen::Index rows, Eigen::Index cols) {
    resize(rows, cols);
    Base::setZero();
    return *this;
  }

  /// Elements the storage holds without allocating.
  std::size_t capacity() const { return m_storage.size(); }

 private:
  void reseat(Eigen::Index rows, Eigen::Index cols) {
    ::new (static_cast<Base*>(this)) Base(m_storage.empty() ? nullptr : m_storage.data(), rows, cols);
  }
  void copyFrom(const ReusableArray& other) {
    resize(other.rows(), other.cols());
    Base::operator=(other);
  }
  void takeFrom(ReusableArray& other) {
    const Eigen::Index rows = other.rows(), cols = other.cols();
    m_storage.swap(other.m_storage);
    reseat(rows, cols);
    other.reseat(0, kIsVector ? 1 : 0);
  }

  std::vector<Element> m_storage;
};

}  // namespace propimpact

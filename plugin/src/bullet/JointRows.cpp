#include "JointRows.h"

#include <cstring>

#include "Conversions.h"
#include "propimpact/core/Errors.h"

namespace propimpact::bullet_detail {

void JointRows::add(btTypedConstraint& joint, int blockA, int blockB, const btContactSolverInfo& info,
                    ImpactProblem& problem) {
  btTypedConstraint::btConstraintInfo1 info1;
  joint.getInfo1(&info1);
  if (info1.m_numConstraintRows <= 0) return;
  m_rows.resize(info1.m_numConstraintRows);
  for (int r = 0; r < info1.m_numConstraintRows; ++r) {
    std::memset(static_cast<void*>(&m_rows[r]), 0, sizeof(btSolverConstraint));
    m_rows[r].m_lowerLimit = -SIMD_INFINITY;
    m_rows[r].m_upperLimit = SIMD_INFINITY;
  }
  btTypedConstraint::btConstraintInfo2 info2;
  info2.fps = 1 / info.m_timeStep;
  info2.erp = info.m_erp;
  info2.m_J1linearAxis = m_rows[0].m_contactNormal1;
  info2.m_J1angularAxis = m_rows[0].m_relpos1CrossNormal;
  info2.m_J2linearAxis = m_rows[0].m_contactNormal2;
  info2.m_J2angularAxis = m_rows[0].m_relpos2CrossNormal;
  info2.rowskip = sizeof(btSolverConstraint) / sizeof(btScalar);
  info2.m_constraintError = &m_rows[0].m_rhs;
  info2.m_damping = info.m_damping;
  info2.cfm = &m_rows[0].m_cfm;
  info2.m_lowerLimit = &m_rows[0].m_lowerLimit;
  info2.m_upperLimit = &m_rows[0].m_upperLimit;
  info2.m_numIterations = info.m_numIterations;
  joint.getInfo2(&info2);
  for (int r = 0; r < info1.m_numConstraintRows; ++r) {
    const btSolverConstraint& row = m_rows[r];
    // Only equality rows always stay active; limits and motors are left to Bullet's pass.
    if (row.m_lowerLimit > -SIMD_INFINITY || row.m_upperLimit < SIMD_INFINITY) continue;
    Vector6 rowA, rowB;
    rowA << toEigen(row.m_contactNormal1), toEigen(row.m_relpos1CrossNormal);
    rowB << toEigen(row.m_contactNormal2), toEigen(row.m_relpos2CrossNormal);
    // A zero row (e.g. a locked axis) constrains nothing: the problem rejects
    // it (InputErrors::Record) and the joint goes on without it.
    if (blockA != kNoBlock && blockB != kNoBlock)
      problem.addBilateralRow(blockA, rowA, blockB, rowB);
    else if (blockA != kNoBlock)
      problem.addBilateralRow(blockA, rowA, kNoBlock, VectorX());
    else
      problem.addBilateralRow(blockB, rowB, kNoBlock, VectorX());
  }
}

}  // namespace propimpact::bullet_detail

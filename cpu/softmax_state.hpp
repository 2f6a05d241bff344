// softmax_state.hpp — the running state of online softmax for the rows of one output tile, and the
// re-scaling operator that merges two such states (the paper's reduction operator).
//
//   m   (rows)        running maximum of the scaled logits
//   l   (rows)        Σ exp(s − m)
//   acc (rows, d)     Σ exp(s − m) · v, un-normalised
// merge(a, b) gives the state of a's tokens followed by b's: it is associative (the paper proves it; the
// tests check it), which is what lets LeanAttention cut an output tile anywhere.
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace leanattn::cpu {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// exp(x − m) that is 0 for a row that has seen nothing yet (m = −∞), instead of exp(−∞ + ∞) = NaN.
inline float rescale_factor(float m_old, float m_new) { return m_old == -INFINITY ? 0.0f : std::exp(m_old - m_new); }

// max that keeps a NaN (std::max would drop it, and a NaN input must reach its output).
inline float nan_max(float a, float b) { return (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b); }

struct SoftmaxState {
    Eigen::VectorXf m, l;
    RowMatrix acc;

    void reset(Eigen::Index rows, Eigen::Index d) {
        m.setConstant(rows, -INFINITY);
        l.setZero(rows);
        acc.setZero(rows, d);
    }

    // this ← this ∘ other, row by row.
    void merge(const float* other_m, const float* other_l, const float* other_acc) {
        const Eigen::Index d = acc.cols();
        for (Eigen::Index r = 0; r < acc.rows(); ++r) {
            const float mn = nan_max(m[r], other_m[r]);
            if (mn == -INFINITY) continue;  // both empty
            const float a = rescale_factor(m[r], mn), b = rescale_factor(other_m[r], mn);
            l[r] = l[r] * a + other_l[r] * b;
            acc.row(r) = acc.row(r) * a + Eigen::Map<const Eigen::RowVectorXf>(other_acc + r * d, d) * b;
            m[r] = mn;
        }
    }
    void merge(const SoftmaxState& other) { merge(other.m.data(), other.l.data(), other.acc.data()); }
};

}  // namespace leanattn::cpu

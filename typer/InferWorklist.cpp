#include "typer/InferWorklist.h"

#include <algorithm>

#include "support/InternalAssert.h"

namespace ufjit::ir::typer {

bool InferWorklist::tracks(const ast::Stmt &s) {
  return s.kind == ast::StmtKind::Assign || s.kind == ast::StmtKind::AugAssign ||
         s.kind == ast::StmtKind::ExprStmt;
}

void InferWorklist::reset() {
  recording_ = nullptr;  // a typing that threw never reached end()
  recording_stmt_ = nullptr;
  clock_ = 0;
  typings_ = 0;
  locals_.clear();
  records_.clear();
  stale_.clear();
}

void InferWorklist::forget_weak_readers() {
  for (auto it = records_.begin(); it != records_.end();) {
    it = it->second.read_weak ? records_.erase(it) : std::next(it);
  }
}

std::optional<bool> InferWorklist::current(const ast::Stmt &s) const {
  auto it = records_.find(&s);
  if (it == records_.end()) return std::nullopt;
  const Record &r = it->second;
  bool stale = std::any_of(r.reads.begin(), r.reads.end(),
                           [&r](const Local *l) { return l->changed_at > r.typed_at; });
  if (stale) return std::nullopt;
  return r.read_weak;
}

void InferWorklist::begin(const ast::Stmt &s) {
  internal_assert(recording_ == nullptr) << "InferWorklist: statements typed inside one another";
  Record &r = records_[&s];
  r.typed_at = clock_;
  r.reads.clear();
  r.read_weak = false;
  ++typings_;
  recording_ = &r;
  recording_stmt_ = &s;
}

void InferWorklist::end() {
  recording_ = nullptr;
  recording_stmt_ = nullptr;
}

void InferWorklist::record_read(const std::string &local) {
  Local &l = locals_[local];
  if (l.last_typing == typings_) return;  // read before in this typing
  l.last_typing = typings_;
  recording_->reads.push_back(&l);
  if (l.readers.empty() || l.readers.back() != recording_stmt_) l.readers.push_back(recording_stmt_);
}

void InferWorklist::note_change(const std::string &local) {
  Local &l = locals_[local];
  l.changed_at = ++clock_;
  for (const ast::Stmt *s : l.readers) {
    auto it = records_.find(s);
    if (it == records_.end() || it->second.queued) continue;
    it->second.queued = true;
    stale_.push_back(s);
  }
}

const ast::Stmt *InferWorklist::pop_stale() {
  while (!stale_.empty()) {
    const ast::Stmt *s = stale_.front();
    stale_.pop_front();
    auto it = records_.find(s);
    if (it == records_.end()) continue;  // forgotten: the next pass types it
    it->second.queued = false;
    return s;
  }
  return nullptr;
}

}  // namespace ufjit::ir::typer

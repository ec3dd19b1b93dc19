#include "runner/profile/profile_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <tuple>
#include <type_traits>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/profile/schema_set.h"

namespace ptsn::profile {

namespace {

// Bump when the layout or any serialized struct changes; older files are then ignored.
constexpr char kMagic[8] = {'P', 'T', 'S', 'N', 'P', 'C', '0', '3'};  // 03: four-lane ContentHash
constexpr size_t kHeader = sizeof(kMagic) + 16;  // magic, payload size, payload hash

// The structs below are written field by field; a new member must be added to Put/Get (the
// corpus round-trip test compares with defaulted operator==, so a forgotten member fails it).
class Writer {
 public:
  std::string out;
  void U64(uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(const std::string& s) {
    U64(s.size());
    out += s;
  }
  void Put(const std::string& s) { Str(s); }
  void Put(uint64_t v) { U64(v); }
  void Put(bool v) { U64(v); }
  template <class T>
  void Put(const std::vector<T>& v) {
    U64(v.size());
    for (const auto& x : v) Put(x);
  }
  template <class A, class B>
  void Put(const std::pair<A, B>& p) {
    Put(p.first);
    Put(p.second);
  }
  template <class K, class V, class C>
  void Put(const std::map<K, V, C>& m) {
    U64(m.size());
    for (const auto& kv : m) Put(kv);
  }
  void Put(const ProfileInput& f) {
    Str(f.name), U64(f.hash), U64(f.stamp.dev), U64(f.stamp.ino), U64(f.stamp.size);
    U64(static_cast<uint64_t>(f.stamp.mtime_ns)), U64(static_cast<uint64_t>(f.stamp.ctime_ns));
  }
  void Put(const LoadIssue& i) {
    Str(i.file), Str(i.element), Str(i.message), Put(i.fatal);
  }
  void Put(const OptionEntry& e) { Str(e.name), Str(e.value), Str(e.message); }
  void Put(const TestOption& o) {
    Str(o.identifier), Str(o.display_name), Str(o.message), Str(o.prefix), Str(o.postfix), Str(o.default_entry_raw);
    Put(o.entries);
  }
  void Put(const ResultsParserBlock& b);
  void Put(const SystemMonitorDef& m) { Str(m.sensor), Str(m.polling_frequency), Str(m.report); }
  void Put(const ImageParserDef& d) {
    Str(d.source_image), Str(d.match_to_test_arguments), Str(d.image_x), Str(d.image_y), Str(d.image_width),
        Str(d.image_height);
  }
  void Put(const ResultsDefinition& r) {
    Str(r.path), Put(r.parsers), Put(r.system_monitors), Put(r.extra_data), Put(r.image_parsers);
  }
  void Put(const Download& d) {
    Put(d.urls), Str(d.md5), Str(d.sha256), Str(d.file_name), U64(static_cast<uint64_t>(d.file_size));
    Put(d.platform_specific), Put(d.architecture_specific), Put(d.optional);
  }
  void Put(const ProfileSource& s) {
    Str(s.identifier), Str(s.directory), Put(s.fields), Put(s.options), Put(s.results.has_value());
    if (s.results) Put(*s.results);
    Put(s.downloads), Put(s.has_downloads_file), Put(s.scripts);
  }
  void Put(const ProfileCache::Entry& e) {
    U64(e.inputs.listing_hash), Put(e.inputs.files), U64(e.schema_hash), Put(e.source), Put(e.issues),
        Put(e.schema_issues);
  }
};

// Every ResultsParserBlock string member, in one place for both directions.
template <class Block, class F>
void ForEachBlockString(Block& b, F f) {
  for (auto* s : {&b.output_template, &b.match_to_test_arguments, &b.result_key, &b.line_hint, &b.line_before_hint,
                  &b.line_after_hint, &b.result_before_string, &b.result_after_string, &b.strip_from_result,
                  &b.strip_result_postfix, &b.multi_match, &b.divide_result_by, &b.divide_result_divisor,
                  &b.multiply_result_by, &b.result_scale, &b.result_proportion, &b.result_precision,
                  &b.arguments_description, &b.append_to_arguments_description, &b.file_format,
                  &b.turn_chars_to_space, &b.delete_output_before, &b.delete_output_after, &b.display_format,
                  &b.importance})
    f(*s);
}
// A member added to ResultsParserBlock must be added to ForEachBlockString too.
static_assert(sizeof(ResultsParserBlock) == sizeof(std::string) * 25 + alignof(std::string), "update ForEachBlockString");

void Writer::Put(const ResultsParserBlock& b) {
  U64(static_cast<uint64_t>(static_cast<int64_t>(b.line)));
  ForEachBlockString(b, [&](const std::string& s) { Str(s); });
}

// What an entry was built from, viewed in place (names point into the cache or the entry).
struct InputView {
  std::string_view name;
  uint64_t hash;
  FileStamp stamp;
};

class Reader {
 public:
  explicit Reader(std::string_view d) : data_(d) {}
  bool done() const { return pos_ == data_.size(); }
  uint64_t U64() {
    Need(8);
    uint64_t v;
    std::memcpy(&v, data_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  size_t Count() {
    uint64_t n = U64();
    // Every element takes at least 8 bytes: a larger count is corruption, not a huge allocation.
    if (n > (data_.size() - pos_) / 8 + 1) throw Error("cache: impossible element count");
    return static_cast<size_t>(n);
  }
  std::string_view Bytes() {
    uint64_t n = U64();
    Need(n);
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  // String maps (fields, scripts): each node's strings built in place from the bytes.
  template <class C>
  void Get(std::map<std::string, std::string, C>* m) {
    m->clear();
    size_t n = Count();
    for (size_t i = 0; i < n; ++i) {
      std::string_view key = Bytes(), value = Bytes();
      m->emplace_hint(m->end(), std::piecewise_construct, std::forward_as_tuple(key), std::forward_as_tuple(value));
    }
  }
  void Get(std::string* s) {
    uint64_t n = U64();
    Need(n);
    // Decoding fills fresh strings (most of them empty): constructing one is cheaper than
    // assign()'s general path.
    if (n == 0) s->clear();
    else if (n > s->capacity()) *s = std::string(data_.data() + pos_, n);
    else s->assign(data_.data() + pos_, n);
    pos_ += n;
  }
  void Get(uint64_t* v) { *v = U64(); }
  void Get(bool* v) {
    uint64_t x = U64();
    if (x > 1) throw Error("cache: bad boolean");
    *v = x;
  }
  template <class T>
  void Get(std::vector<T>* v) {
    v->resize(Count());
    for (auto& x : *v) Get(&x);
  }
  template <class A, class B>
  void Get(std::pair<A, B>* p) {
    Get(&p->first);
    Get(&p->second);
  }
  template <class K, class V, class C>
  void Get(std::map<K, V, C>* m) {
    m->clear();
    size_t n = Count();
    for (size_t i = 0; i < n; ++i) {
      std::pair<K, V> kv;
      Get(&kv);
      m->emplace_hint(m->end(), std::move(kv));
    }
  }
  void Get(ProfileInput* f) {
    Get(&f->name);
    f->hash = U64(), f->stamp.dev = U64(), f->stamp.ino = U64(), f->stamp.size = U64();
    f->stamp.mtime_ns = static_cast<int64_t>(U64()), f->stamp.ctime_ns = static_cast<int64_t>(U64());
  }
  void Get(InputView* f) {  // a ProfileInput, its name left in place
    f->name = Bytes();
    f->hash = U64(), f->stamp.dev = U64(), f->stamp.ino = U64(), f->stamp.size = U64();
    f->stamp.mtime_ns = static_cast<int64_t>(U64()), f->stamp.ctime_ns = static_cast<int64_t>(U64());
  }
  void Get(LoadIssue* i) { Get(&i->file), Get(&i->element), Get(&i->message), Get(&i->fatal); }
  void Get(OptionEntry* e) { Get(&e->name), Get(&e->value), Get(&e->message); }
  void Get(TestOption* o) {
    Get(&o->identifier), Get(&o->display_name), Get(&o->message), Get(&o->prefix), Get(&o->postfix),
        Get(&o->default_entry_raw), Get(&o->entries);
  }
  void Get(ResultsParserBlock* b) {
    b->line = static_cast<int>(static_cast<int64_t>(U64()));
    ForEachBlockString(*b, [&](std::string& s) { Get(&s); });
  }
  void Get(SystemMonitorDef* m) { Get(&m->sensor), Get(&m->polling_frequency), Get(&m->report); }
  void Get(ImageParserDef* d) {
    Get(&d->source_image), Get(&d->match_to_test_arguments), Get(&d->image_x), Get(&d->image_y),
        Get(&d->image_width), Get(&d->image_height);
  }
  void Get(ResultsDefinition* r) {
    Get(&r->path), Get(&r->parsers), Get(&r->system_monitors), Get(&r->extra_data), Get(&r->image_parsers);
  }
  void Get(Download* d) {
    Get(&d->urls), Get(&d->md5), Get(&d->sha256), Get(&d->file_name);
    d->file_size = static_cast<long long>(U64());
    Get(&d->platform_specific), Get(&d->architecture_specific), Get(&d->optional);
  }
  void Get(ProfileSource* s) {
    Get(&s->identifier), Get(&s->directory), Get(&s->fields), Get(&s->options);
    bool has_results;
    Get(&has_results);
    if (has_results) Get(&s->results.emplace());
    Get(&s->downloads), Get(&s->has_downloads_file), Get(&s->scripts);
  }
  void Get(ProfileCache::Entry* e) {
    e->inputs.listing_hash = U64();
    Get(&e->inputs.files);
    e->schema_hash = U64();
    Get(&e->source), Get(&e->issues), Get(&e->schema_issues);
  }

 private:
  void Need(uint64_t n) const {
    if (n > data_.size() - pos_) throw Error("cache: truncated");
  }
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace

// File layout: magic, payload size, payload hash; payload = count, then per entry: key, size of
// the entry's bytes, entry bytes (inputs.listing_hash, inputs.files, schema_hash, source, issues,
// schema_issues).
ProfileCache::ProfileCache(std::string path) : path_(std::move(path)) {
  try {
    loading_ = std::async(std::launch::async, [this] { Load(); });
  } catch (const std::system_error&) {
    Load();  // no thread to be had: read it now
  }
}

void ProfileCache::WaitLoaded() const {
  std::call_once(loaded_, [this] {
    if (loading_.valid()) loading_.get();
  });
}

const std::string& ProfileCache::load_problem() const {
  WaitLoaded();
  return load_problem_;
}

void ProfileCache::Load() {
  std::string error;
  if (!raw_.Read(path_, &error)) return;  // no cache yet
  try {
    std::string_view data = raw_.view();
    if (data.size() < kHeader || std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0)
      throw Error("not a profile cache of this version");
    uint64_t size, hash;
    std::memcpy(&size, data.data() + 8, 8);
    std::memcpy(&hash, data.data() + 16, 8);
    std::string_view payload = data.substr(kHeader);
    if (payload.size() != size)
      throw Error("truncated (" + std::to_string(payload.size()) + " of " + std::to_string(size) + " bytes)");
    if (ContentHash(payload) != hash) throw Error("checksum mismatch (corrupt)");
    Reader r(payload);
    size_t n = r.Count();
    for (size_t i = 0; i < n; ++i) {
      std::string key;
      r.Get(&key);
      stored_.emplace(std::move(key), r.Bytes());
    }
    if (!r.done()) throw Error("trailing bytes");
  } catch (const Error& e) {
    load_problem_ = path_ + ": " + e.what() + "; ignored";
    stored_.clear();
    raw_.Clear();
  }
}

namespace {

// Inputs still the same? The directory listing, then each file by stamp or else by content hash.
bool Fresh(uint64_t listing_hash, const std::vector<InputView>& files, uint64_t schema_hash, const std::string& dir,
           const DirectoryRead& how, const std::vector<DirEntry>& listing, bool listing_stamps_current) {
  if (ListingHash(listing) != listing_hash) return false;
  if (how.schemas && how.schema_issues && schema_hash != how.schemas->content_hash()) return false;
  std::string path = dir + '/', content, error;
  size_t dir_part = path.size();
  for (const auto& f : files) {
    path.resize(dir_part);
    path += f.name;
    // Same device, inode, size, mtime and ctime as when it was read: the same bytes. Otherwise
    // (touched, rewritten, or just changed when read) the content decides. The stamp taken by the
    // listing of this load serves when it is current and has one; else the file is stat()ed now.
    if (f.stamp.known()) {
      auto it = std::lower_bound(listing.begin(), listing.end(), f.name,
                                 [](const DirEntry& e, std::string_view n) { return e.name < n; });
      bool listed = listing_stamps_current && it != listing.end() && it->name == f.name && it->stamp.known();
      if ((listed ? it->stamp : StampOf(path)) == f.stamp) continue;
    }
    if (!ReadWholeFile(path, &content, &error) || ContentHash(content) != f.hash) return false;
  }
  return true;
}

void Append(std::vector<LoadIssue>* to, const std::vector<LoadIssue>& from) {
  if (to) to->insert(to->end(), from.begin(), from.end());
}

}  // namespace

ProfileSource ProfileCache::Read(const std::string& dir, const std::string& identifier, std::vector<LoadIssue>* issues,
                                 const DirectoryRead& how) {
  WaitLoaded();
  std::string key = NormalizeDirectory(dir);
  std::vector<DirEntry> own_listing;
  const std::vector<DirEntry>* listing = how.listing;
  bool stamps_current = how.listing_stamps_current;
  if (!listing) {
    ListDirectory(key, &own_listing, IsProfileInput);
    listing = &own_listing;
    stamps_current = true;
  }
  bool validate = how.schemas && how.schema_issues;
  std::string derived_id = identifier.empty() ? IdentifierForDirectory(key) : identifier;
  std::shared_ptr<const Entry> updated;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = updates_.find(key); it != updates_.end()) updated = it->second;
  }
  std::vector<InputView> files;
  if (updated) {
    for (const auto& f : updated->inputs.files) files.push_back({f.name, f.hash, f.stamp});
    if (Fresh(updated->inputs.listing_hash, files, updated->schema_hash, key, how, *listing, stamps_current) &&
        (!validate || updated->schema_hash)) {
      ++hits_;
      ProfileSource src = updated->source;
      src.identifier = derived_id;
      Append(issues, updated->issues);
      if (validate) Append(how.schema_issues, updated->schema_issues);
      return src;
    }
  } else if (auto it = stored_.find(key); it != stored_.end()) {
    try {
      Reader r(it->second);
      uint64_t listing_hash = r.U64();
      files.resize(r.Count());
      for (auto& f : files) r.Get(&f);
      uint64_t schema_hash = r.U64();
      if (Fresh(listing_hash, files, schema_hash, key, how, *listing, stamps_current) && (!validate || schema_hash)) {
        ProfileSource src;
        std::vector<LoadIssue> own_issues, own_schema_issues;
        r.Get(&src), r.Get(&own_issues), r.Get(&own_schema_issues);
        ++hits_;
        src.identifier = derived_id;
        Append(issues, own_issues);
        if (validate) Append(how.schema_issues, own_schema_issues);
        return src;
      }
    } catch (const Error&) {
      // An entry that does not decode (impossible past the checksum, but cheap to guard) is a miss.
    }
  }
  ++misses_;
  auto entry = std::make_shared<Entry>();
  DirectoryRead cold = how;
  cold.listing = listing;
  cold.inputs = &entry->inputs;
  cold.schema_issues = validate ? &entry->schema_issues : nullptr;
  ProfileSource src = ReadProfileDirectory(key, derived_id, &entry->issues, cold);  // errors are not cached
  entry->schema_hash = validate ? how.schemas->content_hash() : 0;
  entry->source = src;
  Append(issues, entry->issues);
  if (validate) Append(how.schema_issues, entry->schema_issues);
  std::lock_guard<std::mutex> lock(mutex_);
  // A validated entry serves both kinds of load; never replace one with an unvalidated one.
  auto& slot = updates_[key];
  if (!slot || validate || !slot->schema_hash) {
    slot = std::move(entry);
    dirty_ = true;
  }
  return src;
}

ProfileCache::~ProfileCache() {
  try {
    Save();
  } catch (const Error&) {
  }
}

void ProfileCache::Save() {
  WaitLoaded();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!dirty_) return;
  Writer w;
  w.out.reserve(raw_.view().size() + updates_.size() * 4096);
  w.out.assign(kHeader, '\0');
  // Entries of directories that no longer exist (a profile checked once in a temporary
  // directory) are dropped, so the file does not grow without bound.
  std::vector<std::pair<std::string_view, std::string_view>> kept;
  for (const auto& [key, bytes] : stored_)
    if (!updates_.count(key) && access(key.c_str(), F_OK) == 0) kept.emplace_back(key, bytes);
  w.U64(updates_.size() + kept.size());
  // Both maps are sorted by key: merge them, re-encoding only the entries this process made.
  auto put = [&](std::string_view key, std::string_view bytes) {
    w.U64(key.size());
    w.out += key;
    w.U64(bytes.size());
    w.out += bytes;
  };
  auto old = kept.begin();
  for (const auto& [key, entry] : updates_) {
    for (; old != kept.end() && old->first < key; ++old) put(old->first, old->second);
    Writer e;
    e.Put(*entry);
    put(key, e.out);
  }
  for (; old != kept.end(); ++old) put(old->first, old->second);
  uint64_t size = w.out.size() - kHeader;
  uint64_t hash = ContentHash(std::string_view(w.out).substr(kHeader));
  std::memcpy(w.out.data(), kMagic, sizeof(kMagic));
  std::memcpy(w.out.data() + 8, &size, 8);
  std::memcpy(w.out.data() + 16, &hash, 8);
  std::string parent = std::filesystem::path(path_).parent_path().string();
  if (!parent.empty()) MakeDirectories(parent);
  WriteFileAtomically(path_, w.out);
  dirty_ = false;
  // The entries now live in the file; keep serving them from memory until the next load.
}

}  // namespace ptsn::profile

#include "results-xml/views/export_html_systems.h"

#include <algorithm>
#include <unordered_map>

#include "results-xml/views/export_common.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/system_notes.h"

namespace ptsn::results {

namespace {

void Esc(std::string& out, std::string_view s) { AppendXmlEscaped(out, s); }

bool AllEqual(const std::vector<std::string>& v) {
  return std::all_of(v.begin(), v.end(), [&](const std::string& s) { return s == v.front(); });
}

// Rows of components (hardware, then software), each system's notes sections as "X Notes", then
// "Tested", in first-seen order.
std::vector<SystemsRow> Rows(const ResultFile& file, bool with_notes) {
  std::vector<SystemsRow> rows;
  std::unordered_map<std::string, size_t> row_of;
  const size_t n = file.systems.size();
  auto put = [&](const std::string& name, size_t s, const std::string& value) {
    auto [it, added] = row_of.emplace(name, rows.size());
    if (added) rows.push_back({name, std::vector<std::string>(n)});
    rows[it->second].values[s] = value;
  };
  for (size_t s = 0; s < n; ++s)
    for (const std::string* text : {&file.systems[s].hardware, &file.systems[s].software})
      for (auto& [k, v] : SplitComponents(*text)) put(k, s, v);
  if (with_notes)
    for (size_t s = 0; s < n; ++s)
      for (const auto& [section, text] : SystemNoteSections(file.systems[s])) put(section + " Notes", s, text);
  for (size_t s = 0; s < n; ++s) put("Tested", s, file.systems[s].timestamp);
  return rows;
}

// A notes text in its parts: sentences ("Compiz was running on this system.") and the " - "
// separated items PTS joins its notes with ("Scaling Governor: x - CPU Microcode: y").
std::vector<std::string> NoteParts(std::string_view text) {
  std::vector<std::string> parts;
  std::string part;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, " - ") == 0) {
      parts.push_back(part), part.clear(), i += 2;
      continue;
    }
    part += text[i];
    if (text[i] == '.' && i + 1 < text.size() && text[i + 1] == ' ') parts.push_back(part), part.clear(), ++i;
  }
  if (!part.empty()) parts.push_back(part);
  std::erase_if(parts, [](const std::string& p) { return p.empty(); });
  return parts;
}

std::string JoinParts(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += out.back() == '.' ? " " : " - ";
    out += p;
  }
  return out;
}

}  // namespace

std::vector<SystemsRow> FullSystemsTable(const ResultFile& file) { return Rows(file, false); }

SystemsComparison CompareSystems(const ResultFile& file) {
  SystemsComparison c;
  for (auto& row : Rows(file, true)) {
    if (AllEqual(row.values)) {
      if (!row.values.empty() && !row.values.front().empty()) c.same.emplace_back(row.name, row.values.front());
      continue;
    }
    const bool notes = row.name.size() > 6 && row.name.ends_with(" Notes");
    if (notes) {
      // Of a notes section, the parts every system has once, and beside each other only the rest.
      std::vector<std::vector<std::string>> parts;
      for (const auto& v : row.values) parts.push_back(NoteParts(v));
      std::vector<std::string> shared;
      for (const auto& p : parts.front())
        if (std::all_of(parts.begin(), parts.end(), [&](const auto& ps) { return std::find(ps.begin(), ps.end(), p) != ps.end(); }))
          shared.push_back(p);
      if (!shared.empty()) {
        c.same.emplace_back(row.name, JoinParts(shared));
        for (size_t s = 0; s < parts.size(); ++s) {
          std::erase_if(parts[s], [&](const std::string& p) { return std::find(shared.begin(), shared.end(), p) != shared.end(); });
          row.values[s] = JoinParts(parts[s]);
        }
      }
    }
    c.differing.push_back(std::move(row));
  }
  return c;
}

void AppendSystemsHtml(std::string& out, const ResultFile& file, bool detailed) {
  const size_t n = file.systems.size();
  auto header = [&] {
    out += "<tr><th></th>";
    for (const auto& s : file.systems) {
      out += "<th>";
      Esc(out, s.identifier);
      out += "</th>";
    }
    out += "</tr>";
  };
  auto row = [&](const SystemsRow& r, const char* cls) {
    out += std::string("<tr class=\"") + cls + "\"><th>";
    Esc(out, r.name);
    out += "</th>";
    for (const auto& v : r.values) {
      out += "<td>";
      if (v.empty()) out += "<span class=\"meta\">—</span>";
      else Esc(out, v);
      out += "</td>";
    }
    out += "</tr>";
  };
  out += "<h2>Systems</h2>";
  if (detailed || n < 2) {
    out += "<div class=\"scroll\"><table class=\"systems\">";
    header();
    for (const auto& r : FullSystemsTable(file)) row(r, "full");
    out += "</table></div>";
  } else {
    const SystemsComparison c = CompareSystems(file);
    out += "<p class=\"meta\" id=\"systems-differ\">";
    if (c.differing.empty()) out += "The systems differ only in their names.";
    else {
      out += "What differs between the systems: ";
      for (size_t i = 0; i < c.differing.size(); ++i) {
        if (i) out += ", ";
        Esc(out, c.differing[i].name);
      }
      out += ". The rest is the same on all " + std::to_string(n) + " (the full table: sdt).";
    }
    out += "</p><div class=\"scroll\"><table class=\"systems\">";
    header();
    for (const auto& r : c.differing) row(r, "differs");
    if (!c.same.empty())
      out += "<tr><th colspan=\"" + std::to_string(n + 1) + "\" class=\"same-head\">Same on all " + std::to_string(n) +
             " systems</th></tr>";
    for (const auto& [name, value] : c.same) {
      out += "<tr class=\"same\"><th>";
      Esc(out, name);
      out += "</th><td colspan=\"" + std::to_string(n) + "\">";
      Esc(out, value);
      out += "</td></tr>";
    }
    out += "</table></div>";
    return;  // the notes are rows of the table
  }
  // Each system's notes as PTS's HTML export words them ("Kernel Notes: ..."); systems whose
  // notes equal the previous one's are not repeated.
  std::string section, previous;
  for (const auto& s : file.systems) {
    std::string notes;
    for (const auto& [name, text] : SystemNoteSections(s)) {
      notes += "<strong>";
      Esc(notes, name);
      notes += " Notes:</strong> ";
      Esc(notes, text);
      notes += "<br>";
    }
    if (notes.empty()) continue;
    section += "<p class=\"notes\"><b>";
    Esc(section, s.identifier);
    section += "</b><br>";
    section += notes == previous ? std::string("(as above)") : notes;
    section += "</p>";
    previous = notes;
  }
  if (!section.empty()) out += "<h2>System Notes</h2>" + section;
}

}  // namespace ptsn::results

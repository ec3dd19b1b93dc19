#include "results-xml/fast_xml.h"

#include <gtest/gtest.h>
#include <libxml/parser.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "results-xml/export_json.h"
#include "results-xml/export_stream.h"
#include "results-xml/export_test_fixture.h"
#include "results-xml/result_xml.h"
#include "results-xml/test_support.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

// A read as a list of calls: "S name", "E name", "T text" (adjacent text joined: the two
// readers cut text differently), "C comment", and what only libxml2 reports ("P", "R", "D",
// "A" for attributes, "X" for CDATA).
using Calls = std::vector<std::string>;

void AddText(Calls& calls, std::string_view text) {
  if (!calls.empty() && calls.back().starts_with("T ")) calls.back() += text;
  else calls.push_back("T " + std::string(text));
}

struct FastRecorder : FastXmlHandler {
  bool StartElement(std::string_view name) override { return Add("S " + std::string(name)); }
  bool EndElement(std::string_view name) override { return Add("E " + std::string(name)); }
  bool Characters(std::string_view text) override {
    AddText(calls, text);
    return true;
  }
  bool Comment(const std::string& text) override { return Add("C " + text); }
  bool Add(std::string call) {
    calls.push_back(std::move(call));
    return true;
  }
  Calls calls;
};

// The fast reader over `parts`; nullopt when it gave up.
std::optional<Calls> FastCalls(const std::vector<std::string_view>& parts) {
  FastRecorder recorder;
  FastXmlReader reader(recorder);
  for (std::string_view part : parts)
    if (!reader.Feed(part)) return std::nullopt;
  if (!reader.Finish()) return std::nullopt;
  return recorder.calls;
}

// libxml2's SAX1 parser with the options result_xml.cc reads with; nullopt when it reports an
// error (or the document is not well-formed).
std::optional<Calls> LibxmlCalls(const std::string& text) {
  struct Run {
    Calls calls;
    bool error = false;
    static Run& Of(void* ctx) { return *static_cast<Run*>(static_cast<xmlParserCtxt*>(ctx)->_private); }
  } run;
  xmlParserCtxt* ctxt = xmlNewParserCtxt();
  xmlSAXHandler& sax = *ctxt->sax;
  sax = xmlSAXHandler{};
  sax.initialized = 1;  // SAX1, as SaxReader installs it
  sax.startElement = [](void* ctx, const xmlChar* name, const xmlChar** atts) {
    Run::Of(ctx).calls.push_back((atts ? "A " : "S ") + std::string(reinterpret_cast<const char*>(name)));
  };
  sax.endElement = [](void* ctx, const xmlChar* name) {
    Run::Of(ctx).calls.push_back("E " + std::string(reinterpret_cast<const char*>(name)));
  };
  sax.characters = [](void* ctx, const xmlChar* ch, int len) {
    AddText(Run::Of(ctx).calls, std::string_view(reinterpret_cast<const char*>(ch), static_cast<size_t>(len)));
  };
  sax.ignorableWhitespace = sax.characters;
  sax.cdataBlock = [](void* ctx, const xmlChar*, int) { Run::Of(ctx).calls.push_back("X"); };
  sax.comment = [](void* ctx, const xmlChar* value) {
    Run::Of(ctx).calls.push_back("C " + std::string(reinterpret_cast<const char*>(value)));
  };
  sax.processingInstruction = [](void* ctx, const xmlChar*, const xmlChar*) { Run::Of(ctx).calls.push_back("P"); };
  sax.reference = [](void* ctx, const xmlChar*) { Run::Of(ctx).calls.push_back("R"); };
  sax.internalSubset = [](void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    Run::Of(ctx).calls.push_back("D");
  };
  ctxt->_private = &run;
  xmlSetStructuredErrorFunc(&run, [](void* r, xmlErrorPtr err) {
    if (err && err->level >= XML_ERR_ERROR) static_cast<Run*>(r)->error = true;
  });
  xmlCtxtReadMemory(ctxt, text.data(), static_cast<int>(text.size()), nullptr, nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                        XML_PARSE_IGNORE_ENC);
  xmlSetStructuredErrorFunc(nullptr, nullptr);
  const bool ok = ctxt->wellFormed && !run.error;
  xmlFreeParserCtxt(ctxt);
  if (!ok) return std::nullopt;
  return run.calls;
}

// The fast reader's promise for one document (fed whole, or as the parts given): where it reads
// to the end, libxml2 reads it without error and makes the same calls. Returns whether it did.
bool CheckAgainstLibxml(const std::string& text, const std::vector<std::string_view>& parts = {}) {
  const auto fast = FastCalls(parts.empty() ? std::vector<std::string_view>{text} : parts);
  if (!fast) return false;
  const auto libxml = LibxmlCalls(text);
  EXPECT_TRUE(libxml.has_value()) << "the fast reader read what libxml2 rejects:\n" << text.substr(0, 2000);
  if (libxml) {
    EXPECT_EQ(*fast, *libxml) << text.substr(0, 2000);
  }
  return true;
}

// Every length up to a few words, a difference at every position, and none.
TEST(FastXml, SameShortBytesComparesEveryByte) {
  for (size_t n = 0; n <= 40; ++n) {
    const std::string a(n, 'x');
    EXPECT_TRUE(SameShortBytes(a.data(), std::string(a).data(), n)) << n;
    for (size_t at = 0; at < n; ++at) {
      std::string b = a;
      b[at] = 'y';
      EXPECT_FALSE(SameShortBytes(a.data(), b.data(), n)) << n << " " << at;
    }
  }
}

TEST(FastXml, ReadsThePlainSubsetAsLibxmlDoes) {
  const std::vector<std::string> read = {
      "<a/>",
      "<a></a>",
      "<?xml version=\"1.0\"?>\n<a>x</a>\n",
      "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><a/>",
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>b</a>",
      "<!--lead--><PhoronixTestSuite>\n  <Generated><Title>T &amp; &lt;U&gt; &quot;q&quot; &apos;</Title></Generated>\n"
      "</PhoronixTestSuite>\n<!--trail-->\n",
      "<a>&#65;&#x42;&#x00043;&#233;&#x1F600;&#xD;&#9;</a>",
      "<a >\n\t<b\n/><c\t></c ><!-- in - side --></a>",
      "<a>caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 ] ]> ]] > \x7f</a>",
      "<a_b-c.d1><A/></a_b-c.d1>",
  };
  for (const std::string& text : read) EXPECT_TRUE(CheckAgainstLibxml(text)) << text;
}

TEST(FastXml, GivesUpOnEverythingElse) {
  const std::vector<std::string> given_up = {
      "", "  ", "<a>", "<a></b>", "<a></a><b/>", "text<a/>", "<a/>text", "<a x=\"1\"/>", "<p:a/>", "<a>]]></a>",
      "<a>\r\n</a>", "<a>\x01</a>", "<a>\xef\xbf\xbe</a>", "<a>\xc3</a>", "<a>&nbsp;</a>", "<a>&#0;</a>", "<a>&#xD800;</a>",
      "<a>&#x110000;</a>", "<a>&#X41;</a>", "<a>&#;</a>", "<a>&amp</a>", "<a><![CDATA[x]]></a>", "<a><?pi x?></a>",
      "<!DOCTYPE a><a/>", " <?xml version=\"1.0\"?><a/>", "<?xml version=\"1.1\"?><a/>",
      "<?xml version = \"1.0\"?><a/>", "<a><!-- x -- y --></a>", "<a><!-- x ---></a>", "<\xc3\xa9/>", "<1a/>",
      "\xef\xbb\xbf<a/>", "<a>&#0000000065;</a>", "<a/><!--x", "<a></a",
  };
  for (const std::string& text : given_up) {
    EXPECT_FALSE(FastCalls({text}).has_value()) << text;
    CheckAgainstLibxml(text);  // (nothing read, nothing to compare)
  }
}

std::vector<std::string> Corpus() {
  std::vector<std::string> docs = {SerializeResultFile(test::SmallResultFile())};
  for (const std::string& path : test::ReferenceResultFiles()) docs.push_back(ReadFile(path));
  return docs;
}

// Every result file PTS wrote (and ours) is read through by the fast reader, the same as libxml2.
TEST(FastXml, ReadsEveryResultFileWhole) {
  for (const std::string& doc : Corpus()) EXPECT_TRUE(CheckAgainstLibxml(doc)) << doc.substr(0, 300);
}

// Test profiles, suites and the other XML of the shared corpus: whatever the fast reader reads
// through, libxml2 reads the same.
TEST(FastXml, AgreesWithLibxmlOnTheSharedCorpus) {
  PTSN_REQUIRE_REFERENCE();
  size_t read = 0, total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::SharedDir())) {
    if (!e.is_regular_file() || e.path().extension() != ".xml") continue;
    ++total;
    read += CheckAgainstLibxml(ReadFile(e.path().string()));
  }
  std::printf("(read through %zu of %zu XML files of the shared tree)\n", read, total);
  EXPECT_GT(read, total / 2) << read << " of " << total;
}

// One random change (a byte replaced, inserted or deleted, a piece repeated, the end cut) of a
// document, biased to the bytes markup is made of.
std::string Mutate(const std::string& doc, std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {
      "<", ">", "&", ";", "#", "x", "]", "-", "!", "?", "/", "=", "\"", "'", ":", " ", "\t", "\n", "\r", std::string(1, '\0'),
      "\x01", "\x7f", "\xef\xbf\xbe", "\xc3\xa9", "\xc3", "A", "0", "&#", "&amp;", "]]>", "<!--", "-->", "<![CDATA[",
      "<?", "?>", "</", "/>"};
  std::string out = doc;
  if (out.empty()) return out;
  const size_t at = rng() % out.size();
  const std::string& piece = kPieces[rng() % kPieces.size()];
  switch (rng() % 6) {
    case 0: out.replace(at, 1, piece); break;
    case 1: out.insert(at, piece); break;
    case 2: out.erase(at, 1 + rng() % 4); break;
    case 3: out.insert(at, out.substr(at, 1 + rng() % 40)); break;
    case 4: out.resize(at); break;
    default: out[at] = static_cast<char>(rng() % 256); break;
  }
  return out;
}

TEST(FastXml, AgreesWithLibxmlOnDamagedDocuments) {
  std::mt19937_64 rng(7);
  size_t read = 0, tried = 0;
  for (const std::string& doc : Corpus()) {
    if (doc.size() > 400000) continue;  // (the large ones take long through libxml2 each time)
    for (int i = 0; i < 1500; ++i, ++tried) {
      std::string damaged = Mutate(doc, rng);
      if (rng() % 3 == 0) damaged = Mutate(damaged, rng);
      read += CheckAgainstLibxml(damaged);
    }
  }
  // Most changes land in text, which stays readable: the fast reader must not give up on all.
  std::printf("(read through %zu of %zu damaged documents)\n", read, tried);
  // Every damaged document was checked against libxml2 above; the share read through is a fair
  // measure only over the reference files (one small document alone gives a skewed share).
  if (!test::HaveReference()) GTEST_SKIP() << "read-through share not judged: no shared reference tree at " << test::ReferenceDir();
  EXPECT_GT(read, tried / 4) << read << " of " << tried;
}

// A result file cut at <Result> tags and read in parts with the root's tags around each (as
// StreamResultFile's threads read it): the same calls as libxml2 over the joined text.
TEST(FastXml, ReadsAFileInPartsCutBetweenTokens) {
  const std::string doc = SerializeResultFile(test::SmallResultFile());
  const size_t first = doc.find("<Result>"), second = doc.find("<Result>", first + 1);
  ASSERT_NE(second, std::string::npos);
  const std::string body = doc.substr(first, second - first);
  const std::string open = "<PhoronixTestSuite>", close = "</PhoronixTestSuite>";
  EXPECT_TRUE(CheckAgainstLibxml(open + body + close, {open, body, close}));
  // A part that ends inside a token is given up.
  EXPECT_FALSE(FastCalls({open, body.substr(0, 5), body.substr(5), close}).has_value());
}

// End to end: reading with the fast reader on and off gives the same model or the same error,
// for damaged result files too, and the same streamed export on one thread and on three.
TEST(FastXml, ResultFilesReadTheSameWithAndWithoutIt) {
  std::mt19937_64 rng(11);
  auto outcome = [](const std::string& text) -> std::string {
    try {
      return SerializeResultFile(ParseResultFile(text, "doc.xml"), {.keep_as_read = true});
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
  };
  size_t compared = 0;
  for (const std::string& doc : Corpus()) {
    if (doc.size() > 400000) continue;
    for (int i = 0; i < 400; ++i, ++compared) {
      const std::string damaged = i == 0 ? doc : Mutate(doc, rng);
      UseFastXmlReader(true);
      const std::string fast = outcome(damaged);
      UseFastXmlReader(false);
      const std::string slow = outcome(damaged);
      UseFastXmlReader(true);
      ASSERT_EQ(fast, slow) << damaged.substr(0, 2000);
    }
  }
  EXPECT_GT(compared, 0u);
}

// ReadResultFile's `into` after reads that failed part-way (damaged files), and after reads of
// other files: the next file read into it gives the same model as a fresh read.
TEST(FastXml, ReadingIntoAModelLeftByOtherReadsGivesTheFreshModel) {
  std::mt19937_64 rng(23);
  const auto dir = std::filesystem::temp_directory_path() / ("ptsn-fastxml-into-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "doc.xml").string();
  auto outcome = [&](ResultFile* into) -> std::string {
    try {
      if (into) {
        ReadResultFile(path, *into);
        return SerializeResultFile(*into, {.keep_as_read = true});
      }
      return SerializeResultFile(ReadResultFile(path), {.keep_as_read = true});
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
  };
  const std::vector<std::string> corpus = Corpus();
  ResultFile model;
  size_t compared = 0;
  for (int i = 0; i < 3000; ++i, ++compared) {
    const std::string& doc = corpus[rng() % corpus.size()];
    if (doc.size() > 400000) continue;
    WriteFileAtomically(path, rng() % 2 ? doc : Mutate(doc, rng));
    const std::string fresh = outcome(nullptr);
    ASSERT_EQ(outcome(&model), fresh) << "read " << i;
  }
  EXPECT_GT(compared, 0u);
  std::filesystem::remove_all(dir);
}

TEST(FastXml, StreamedExportsAreTheSameWithAndWithoutIt) {
  const std::string doc = SerializeResultFile(test::RepeatedResultFile(800));
  const auto dir = std::filesystem::temp_directory_path() / ("ptsn-fastxml-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "doc.xml").string();
  std::mt19937_64 rng(5);
  const JsonOptions stats{.extras = JsonOptions::Extras::kStatistics};
  auto render = [&](unsigned threads) -> std::string {
    try {
      return RenderResultFile(path, *MakeJsonView(stats), [&](const ResultFile& f) { return ResultFileToJson(f, stats); },
                              threads);
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
  };
  for (int i = 0; i < 30; ++i) {
    WriteFileAtomically(path, i == 0 ? doc : Mutate(doc, rng));
    UseFastXmlReader(false);
    const std::string slow = render(1);
    UseFastXmlReader(true);
    for (unsigned threads : {1u, 3u}) ASSERT_EQ(render(threads), slow) << "mutant " << i << ", " << threads << " threads";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ptsn::results

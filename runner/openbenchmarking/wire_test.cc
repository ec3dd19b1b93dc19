#include "runner/openbenchmarking/wire.h"

#include <gtest/gtest.h>

#include <map>

namespace ptsn::wire {
namespace {

FieldLookup Lookup(const FormFields& fields) {
  return [fields](const std::string& name) -> std::optional<std::string> {
    for (const auto& [k, v] : fields)
      if (k == name) return v;
    return std::nullopt;
  };
}

TEST(Wire, Base64RoundTripsAndIsStrict) {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar", std::string("\0\xff\x10", 3)})
    EXPECT_EQ(Base64Decode(Base64Encode(s)), s);
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Decode("Zm9v\r\nYmFy"), "foobar");
  EXPECT_EQ(Base64Decode("Zm9v\nYm\nFy"), "foobar");  // line breaks of either kind alone
  EXPECT_EQ(Base64Decode("Zm9v\rYmFy\r"), "foobar");
  EXPECT_FALSE(Base64Decode("Zm9vYmF"));   // truncated
  EXPECT_FALSE(Base64Decode("Zm9=YmFy"));  // padding in the middle
  EXPECT_FALSE(Base64Decode("Zm9v YmFy")); // bad character
  for (const char* bad : {"=", "A===", "====", "Zm=v", "Zg==Zg==", "Zm9v\x80mFy", "Zm9vYmF="})
    EXPECT_EQ(Base64Decode(bad).has_value(), std::string(bad) == "Zm9vYmF=") << bad;
  EXPECT_EQ(Base64Decode("Zg=="), "f");
  EXPECT_EQ(Base64Decode("Zm8="), "fo");
  EXPECT_EQ(Base64Decode(""), "");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(Base64Decode(Base64Encode(all + all + "x")), all + all + "x");
}

TEST(Wire, FormDecodingInvertsEncodingAndRefusesBadEscapes) {
  std::string every;
  for (int i = 0; i < 256; ++i) every += static_cast<char>(i);
  FormFields fields{{"a b", "c+d=e&f%g"}, {"empty", ""}, {"bytes", every}, {"b64", "Zm9v+/YmFy=="}};
  EXPECT_EQ(DecodeForm(EncodeForm(fields)), fields);
  EXPECT_EQ(DecodeForm("x=1+2%2B3&&y&z=%41%62"), (FormFields{{"x", "1 2+3"}, {"y", ""}, {"z", "Ab"}}));
  for (const char* bad : {"x=%", "x=%4", "x=%G1", "x=%4G&y=1", "%zz=1"})
    EXPECT_THROW(DecodeForm(bad), WireError) << bad;
}

TEST(Wire, MultipartFormsDecodeAsCurlAndBrowsersSendThem) {
  std::string every;
  for (int i = 0; i < 256; ++i) every += static_cast<char>(i);
  const std::string body = "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"r\"\r\n\r\nupload_test_result\r\n"
                           "--XyZ\r\ncontent-disposition: form-data; name=\"composite_xml\"; filename=\"c.xml\"\r\n"
                           "Content-Type: application/octet-stream\r\n\r\n" + every + "\r\n--XyZ\r\n"
                           "Content-Disposition: form-data; name=empty\r\n\r\n\r\n--XyZ--\r\n";
  EXPECT_EQ(DecodeMultipart(body, "multipart/form-data; boundary=XyZ"),
            (FormFields{{"r", "upload_test_result"}, {"composite_xml", every}, {"empty", ""}}));
  EXPECT_EQ(DecodeMultipart(body, "Multipart/Form-Data; charset=utf-8; BOUNDARY=\"XyZ\""),
            (FormFields{{"r", "upload_test_result"}, {"composite_xml", every}, {"empty", ""}}));
  const std::string part = "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue";
  struct Bad {
    std::string body, type, says;
  } bad[] = {
      {part + "\r\n--B--", "multipart/form-data", "boundary"},
      {"no parts here", "multipart/form-data; boundary=B", "no part"},
      {part, "multipart/form-data; boundary=B", "does not end"},
      {"--B\r\nContent-Disposition: form-data\r\n\r\nv\r\n--B--", "multipart/form-data; boundary=B", "no name"},
      {"--B\r\nContent-Disposition: form-data; name=a\r\nv\r\n--B--", "multipart/form-data; boundary=B", "headers"},
      {"--Bjunk", "multipart/form-data; boundary=B", "line break"},
  };
  for (const auto& b : bad) {
    try {
      DecodeMultipart(b.body, b.type);
      ADD_FAILURE() << "accepted: " << b.body;
    } catch (const WireError& e) {
      EXPECT_NE(e.message.find(b.says), std::string::npos) << e.message;
    }
  }
}

TEST(Wire, Sha1MatchesKnownValue) { EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d"); }

TEST(Wire, CompressionRoundTripsAndStopsAtTheLimit) {
  std::string text(100000, 'x');
  EXPECT_EQ(RawInflate(RawDeflate(text), 1 << 20), text);
  EXPECT_EQ(Bzip2Decompress(Bzip2Compress(text), 1 << 20), text);
  EXPECT_FALSE(RawInflate(RawDeflate(text), 1000));
  EXPECT_FALSE(Bzip2Decompress(Bzip2Compress(text), 1000));
  std::string deflated = RawDeflate(text);
  EXPECT_FALSE(RawInflate(deflated.substr(0, deflated.size() / 2), 1 << 20));  // truncated
  EXPECT_FALSE(RawInflate("garbage", 1 << 20));
  EXPECT_EQ(RawInflate(deflated + "trailing bytes", 1 << 20), text);  // after the final block: ignored
  EXPECT_EQ(RawInflate(RawDeflate(""), 0), "");
  EXPECT_FALSE(Bzip2Decompress("BZh9 garbage", 1 << 20));
}

// The decoders write into a growing output: exactly at the limit is fine, one byte over is not,
// wherever the growth steps fall; a cut stream is refused.
TEST(Wire, DecompressionLimitIsExactAcrossGrowthSteps) {
  for (size_t size : {size_t{1}, size_t{65535}, size_t{65536}, size_t{65537}, size_t{3} << 20}) {
    std::string text;
    for (size_t i = 0; i < size; ++i) text += static_cast<char>('a' + (i * 7 + i / 1000) % 26);
    const std::string deflated = RawDeflate(text), bzipped = Bzip2Compress(text);
    EXPECT_EQ(RawInflate(deflated, size), text) << size;
    EXPECT_EQ(Bzip2Decompress(bzipped, size), text) << size;
    EXPECT_FALSE(RawInflate(deflated, size - 1)) << size;
    EXPECT_FALSE(Bzip2Decompress(bzipped, size - 1)) << size;
    EXPECT_FALSE(RawInflate(deflated.substr(0, deflated.size() - 1), size)) << size;
    EXPECT_FALSE(Bzip2Decompress(bzipped.substr(0, bzipped.size() - 1), size)) << size;
  }
}

TEST(Wire, EncodeUploadPicksStockPtsCompressionBySize) {
  auto field_names = [](const FormFields& f) {
    std::map<std::string, std::string> m(f.begin(), f.end());
    return m;
  };
  EXPECT_TRUE(field_names(EncodeUpload({std::string(9000, 'a')})).count("composite_xml"));
  EXPECT_TRUE(field_names(EncodeUpload({std::string(20000, 'a')})).count("composite_xml_gz"));
  // PTS with php-bz2 would send composite_xml_bz here; a stock PTS (and we) send DEFLATE.
  auto large = field_names(EncodeUpload({std::string(50000, 'a')}));
  EXPECT_TRUE(large.count("composite_xml_gz"));
  EXPECT_FALSE(large.count("composite_xml_bz"));
  auto f = field_names(EncodeUpload({"<x/>", "name"}));
  EXPECT_EQ(f["r"], "upload_test_result");
  EXPECT_EQ(f["composite_xml_hash"], Sha1Hex("<x/>"));
  EXPECT_EQ(f["local_file_name"], "name");
}

TEST(Wire, DecodeUploadInvertsEncode) {
  for (size_t size : {100u, 20000u, 60000u}) {
    Upload up{std::string(size, 'q'), "saved", std::string("zip\0bytes", 9), true};
    Upload back = DecodeUpload(Lookup(EncodeUpload(up)), 1 << 20);
    EXPECT_EQ(back.xml, up.xml);
    EXPECT_EQ(back.local_file_name, "saved");
    EXPECT_EQ(back.system_logs_zip, up.system_logs_zip);
    EXPECT_TRUE(back.unlisted);
  }
}

TEST(Wire, DecodeUploadNamesTheBadField) {
  auto message = [](const FormFields& f) {
    try {
      DecodeUpload(Lookup(f), 1000);
    } catch (const WireError& e) {
      return e.message;
    }
    return std::string();
  };
  std::string xml = "<x/>";
  EXPECT_NE(message({{"composite_xml", Base64Encode(xml)}}).find("missing composite_xml_hash"), std::string::npos);
  EXPECT_NE(message({{"composite_xml", Base64Encode(xml)}, {"composite_xml_hash", "00"}}).find("does not match"),
            std::string::npos);
  EXPECT_NE(message({{"composite_xml", "%%%"}, {"composite_xml_hash", Sha1Hex(xml)}}).find("base64"), std::string::npos);
  EXPECT_NE(message({{"composite_xml", Base64Encode(std::string(2000, 'a'))}, {"composite_xml_hash", "x"}}).find("over the limit"),
            std::string::npos);
  EXPECT_NE(message({{"composite_xml", Base64Encode(xml)}, {"composite_xml_gz", Base64Encode(xml)}}).find("only one"),
            std::string::npos);
  EXPECT_NE(message({{"composite_xml", Base64Encode(xml)}, {"composite_xml_hash", Sha1Hex(xml)},
                     {"system_logs_zip", Base64Encode("zip")}, {"system_logs_hash", "bad"}})
                .find("system_logs_hash"),
            std::string::npos);
  EXPECT_NE(message({}).find("missing composite_xml"), std::string::npos);
}

TEST(Wire, FormEncodingIsPhpCompatible) {
  EXPECT_EQ(EncodeForm({{"a b", "c&d=e+f/ü"}, {"k", ""}}), "a+b=c%26d%3De%2Bf%2F%C3%BC&k=");
}

}  // namespace
}  // namespace ptsn::wire

// The string cleaning PTS's phodevi applies to hardware/software names, reimplemented from its
// documented behaviour (pts_strings in PTS 10.8.6) so our Hardware strings, automatic identifiers
// and descriptions read the way PTS users know them.
#pragma once

#include <string>
#include <vector>

namespace ptsn::sysinfo {

// pts_strings::strip_string(): vendor boilerplate out ("Corporation", "Series", "Controller"...),
// a few renames ("Advanced Micro Devices" -> "AMD"), spaces collapsed, repeated words dropped.
std::string StripString(const std::string& s);

// What phodevi::read_property() does to every probed value: StripString, then bytes outside
// printable ASCII removed.
std::string PropertyValue(const std::string& s);

// pts_strings::trim_search_query(): the searchable head of a component string
// ("AMD EPYC (2 Cores)" -> "AMD EPYC"); "" for sizes and plain numbers ("252GB", "16").
std::string TrimSearchQuery(const std::string& s);

// phodevi::is_vendor_string(): looks like a product name (letters, digits, '.', ' ', '-'; not
// "Unknown"/"Generic"...; a long single token without a space must not contain digits).
bool IsVendorString(const std::string& s);

// pts_arrays::array_to_cleansed_item_string(): empty items dropped, repeats counted
// ("2 x DELL U2415"), joined with " + ".
std::string CleansedItemString(const std::vector<std::string>& items);

// "Key: value, Key: value" -> value of `key` ("" when absent), as
// pts_result_file_analyzer::system_component_string_to_array() splits it.
std::string ComponentValue(const std::string& components, const std::string& key);

// A component's model without its details, close to phodevi's 'model' property:
// "Intel Core i5-7500 @ 3.80GHz (4 Cores)" -> "Intel Core i5-7500", "Intel HD 630 (1100MHz)" -> "Intel HD 630".
std::string ComponentModel(const std::string& value);

}  // namespace ptsn::sysinfo

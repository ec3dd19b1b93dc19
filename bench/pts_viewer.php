<?php
// Reference figures for the result viewer's options (docs/result-viewer.md): the real PTS's
// OpenBenchmarking viewer options applied to one result file, then each remaining result's values
// as its graphs would show them (normalized with nor). What results-xml/views/viewer_options_test.cc
// expects was printed by this script.
// Usage: php pts_viewer.php PTS_SRC_DIR SHARED_TOOLS_DIR IN.xml 'QUERY'   (e.g. 'nor&hgv=Home+Encryption')
// PTS 10.8.6 under PHP 8 stops on array forms (hgv[]=, rmm[]=): give those as plain names.
$pts = rtrim($argv[1], '/') . '/';
$o = array();
require(rtrim($argv[2], '/') . '/pts-boot.inc.php');
parse_str(isset($argv[4]) ? $argv[4] : '', $request);
$rf = new pts_result_file($argv[3]);
$before = count($rf->get_result_objects());
$extra = array();
pts_result_viewer_embed::process_request_to_attributes($request, $rf, $extra);
echo 'kept ', count($rf->get_result_objects()), " of $before; systems: ", implode(' | ', $rf->get_system_identifiers()), "\n";
$i = 0;
foreach($rf->get_result_objects() as $ro)
{
	$r = clone $ro;
	$r->test_result_buffer = clone $ro->test_result_buffer;
	foreach($r->test_result_buffer->buffer_items as $k => $bi)
		$r->test_result_buffer->buffer_items[$k] = clone $bi;
	pts_render::attribute_processing_on_result_object($r, $rf, $extra);
	$values = array();
	foreach($r->test_result_buffer->buffer_items as $bi)
		$values[] = $bi->get_result_value();
	echo ++$i, '. ', $ro->test_profile->get_title(), ' / ', $ro->get_arguments_description(), ' [',
		$ro->test_profile->get_result_proportion(), ']: ', implode(' ; ', $values), "\n";
}

<?php
// Library-level anchor for bench_export.sh: the real PTS's pts_result_file_output export of
// one result file — what result-file-to-{text,csv,json} do, without PTS's start-up.
// Usage: php pts_export.php PTS_SRC_DIR SHARED_TOOLS_DIR text|csv|json IN.xml OUT [WIDTH]
$pts = rtrim($argv[1], '/') . '/';
$o = array();
require(rtrim($argv[2], '/') . '/pts-boot.inc.php');
$format = $argv[3];
$file = new pts_result_file($argv[4], true);
switch($format)
{
	case 'text': $out = pts_result_file_output::result_file_to_text($file, isset($argv[6]) ? (int)$argv[6] : 79); break;
	case 'csv': $out = pts_result_file_output::result_file_to_csv($file); break;
	case 'json': $out = pts_result_file_output::result_file_to_json($file); break;
	default: fwrite(STDERR, "unknown format $format\n"); exit(2);
}
file_put_contents($argv[5], $out);
pts_boot_cleanup();

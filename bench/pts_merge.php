<?php
// Library-level anchor for bench_merge.sh: the real PTS's pts_result_file merge of the given
// files, written with get_xml() — what merge-results does, without its start-up, prompt and
// text view. Usage: php pts_merge.php PTS_SRC_DIR SHARED_TOOLS_DIR OUT.xml IN1.xml IN2.xml ...
$pts = rtrim($argv[1], '/') . '/';
$o = array();
require(rtrim($argv[2], '/') . '/pts-boot.inc.php');
$out = $argv[3];
$inputs = array_slice($argv, 4);
$merged = new pts_result_file($inputs[0], true);
$others = array();
foreach(array_slice($inputs, 1) as $in) { $others[] = new pts_result_file($in, true); }
$merged->merge($others);
file_put_contents($out, $merged->get_xml());
pts_boot_cleanup();

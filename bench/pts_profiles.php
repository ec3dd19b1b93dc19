<?php
// The same work done by the real Phoronix Test Suite: for every profile under a PTS-layout root,
// load it (pts_test_profile), validate test-definition.xml against the schema as PTS's own
// pts_test_profile::validate() does, read its results definition and downloads, and expand its
// options (batch_user_options + default_user_options). Prints the time of the pass (PTS's boot
// excluded).
// usage: php pts_profiles.php --pts PTS_CHECKOUT --boot .../reference/tools/pts-boot.inc.php --root CORPUS
error_reporting(E_ALL & ~E_DEPRECATED & ~E_NOTICE & ~E_WARNING);
$o = getopt('', array('pts:', 'boot:', 'root:', 'schemas:'));
$pts = rtrim(realpath($o['pts']), '/') . '/';
require($o['boot']);
pts_boot_link_tree($o['root']);
$ids = array();
foreach(glob(rtrim($o['root'], '/') . '/*/*/test-definition.xml') as $f) $ids[] = basename(dirname(dirname($f))) . '/' . basename(dirname($f));
$xsd = isset($o['schemas']) ? rtrim($o['schemas'], '/') . '/test-profile.xsd' : null;
ob_start();
$start = microtime(true);
$cpu = function() { $u = getrusage(); return ($u['ru_utime.tv_sec'] + $u['ru_stime.tv_sec']) * 1000 + ($u['ru_utime.tv_usec'] + $u['ru_stime.tv_usec']) / 1000; };
$cpu_start = $cpu();
$combos = 0; $valid = 0;
foreach($ids as $id)
{
	$tp = new pts_test_profile($id);
	$tp->get_title();
	if($xsd) { $dom = new DOMDocument(); $dom->load($tp->get_file_location()); if(@$dom->schemaValidate($xsd)) $valid++; }
	$tp->get_results_definition();
	$tp->get_downloads();
	$b = pts_test_run_options::batch_user_options($tp);
	$d = pts_test_run_options::default_user_options($tp);
	$combos += ($b ? count($b[0]) : 0) + ($d ? count($d[0]) : 0);
}
$ms = (microtime(true) - $start) * 1000;
$cpu_ms = $cpu() - $cpu_start;
ob_end_clean();
printf("pts: %d profiles, %d schema-valid, %d option combinations in %.1f ms (cpu %.1f ms)\n", count($ids), $valid, $combos, $ms, $cpu_ms);
pts_boot_cleanup();

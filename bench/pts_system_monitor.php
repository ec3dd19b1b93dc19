<?php
/*
 * pts_system_monitor.php -- the real PTS 10.8.6 sensor code sampled the way its system_monitor
 * module samples it, to measure its CPU cost beside ours (bench_monitor.sh runs it).
 *
 * Boots pts-core from --pts DIR (state redirected to a temp dir), creates one sensor object per
 * supported sensor with PTS's own classes (phodevi::query_sensors(), MONITOR=all minus cgroup),
 * then, as pts_module::pts_timed_function() does, forks one process per non-instant sensor and
 * one shared by the instant ones, each looping: phodevi::read_sensor(), append the value to a
 * log file, sleep(interval). After --duration seconds the parent SIGTERMs and reaps them and
 * prints the children's CPU time (getrusage of the reaped children).
 *
 *   php pts_system_monitor.php --pts DIR [--duration 30] [--interval 1] [--sensors all|type.sensor,...]
 * "all" creates every device of every sensor (as system_monitor does for MONITOR=all); a list
 * creates each named sensor on its default device.
 */
$o = getopt('', array('pts:', 'duration:', 'interval:', 'sensors:'));
$wanted = $o['sensors'] ?? 'all';
$pts = rtrim($o['pts'] ?? 'phoronix-test-suite', '/') . '/';
$duration = (float)($o['duration'] ?? 30);
$interval = (int)($o['interval'] ?? 1);  // PTS's sleep() takes whole seconds
$tmp = sys_get_temp_dir() . '/pts-monitor-bench-' . getmypid() . '/';
@mkdir($tmp . 'user', 0777, true);
putenv('PTS_MODE=CLIENT');
define('PTS_MODE', 'CLIENT');
define('PTS_PATH', $pts);
require(PTS_PATH . 'pts-core/pts-core.php');
pts_define('PTS_IS_DAEMONIZED_SERVER_PROCESS', false);
pts_define('PTS_USER_PATH', $tmp . 'user/');
pts_define('PTS_CORE_STORAGE', PTS_USER_PATH . 'core.pt2so');
pts_define('PHP_BIN', PHP_BINARY);
pts_core::init();

$instant = array();
$windowed = array();
$names = array();
$list = $wanted === 'all' ? null : explode(',', $wanted);
foreach(phodevi::query_sensors() as $s)
{
	if($s[0] === 'cgroup') continue;  // MONITOR=all leaves cgroup out
	if($list !== null && !in_array($s[0] . '.' . $s[1], $list)) continue;
	$devices = $list === null ? call_user_func(array($s[2], 'get_supported_devices')) : null;
	foreach($devices === null ? array(null) : $devices as $n => $device)
	{
		$obj = new $s[2]($n, $device);
		$names[] = phodevi::sensor_object_identifier($obj);
		if($obj->is_instant()) $instant[] = $obj; else $windowed[] = array($obj);
	}
}
$groups = $windowed;
if(!empty($instant)) $groups[] = $instant;
fwrite(STDOUT, 'PTS sensors: ' . implode(' ', $names) . ' (' . count($groups) . " sampler processes)\n");

$t0 = microtime(true);
$pids = array();
foreach($groups as $i => $group)
{
	$pid = pcntl_fork();
	if($pid == 0)
	{
		$log = $tmp . 'log-' . $i;
		while(true)
		{
			foreach($group as $sensor)
			{
				$v = phodevi::read_sensor($sensor);
				if($v != -1) file_put_contents($log, $v . PHP_EOL, FILE_APPEND);
			}
			sleep($interval);
		}
	}
	$pids[] = $pid;
}
usleep((int)($duration * 1000000));
foreach($pids as $pid) posix_kill($pid, SIGTERM);
foreach($pids as $pid) pcntl_waitpid($pid, $status);
$wall = microtime(true) - $t0;
$ru = getrusage(1);
$cpu = $ru['ru_utime.tv_sec'] + $ru['ru_utime.tv_usec'] / 1e6 + $ru['ru_stime.tv_sec'] + $ru['ru_stime.tv_usec'] / 1e6;
$samples = 0;
foreach(glob($tmp . 'log-*') as $f) $samples += count(file($f));
printf("PTS children CPU %.4f s over %.2f s = %.4f%% of one core, %d samples\n", $cpu, $wall, 100 * $cpu / $wall, $samples);
exec('rm -rf ' . escapeshellarg($tmp));

//! Physical bounds of `Config::validate` (issue 7 "bad input"): the ends of each range are
//! accepted, values just outside are refused with the key named, so a bound that is off,
//! missing or on the wrong key fails here.

use locus_sim::preset;

fn check(key: &str, ok: &[&str], bad: &[&str]) {
    for v in ok {
        preset::load(Some("coda-4gpu"), None, &[format!("{key}={v}")])
            .unwrap_or_else(|e| panic!("{key}={v} must be accepted: {e}"));
    }
    for v in bad {
        let e = preset::load(Some("coda-4gpu"), None, &[format!("{key}={v}")])
            .err()
            .unwrap_or_else(|| panic!("{key}={v} must be refused"))
            .to_string();
        assert!(e.contains(key), "{key}={v}: `{e}` must name the key");
    }
}

#[test]
fn bandwidths_from_10_mb_to_1_pb_per_s() {
    for key in [
        "interconnect.link_gbps",
        "noc.channel_port_gbps",
        "l2.slice_gbps",
    ] {
        check(
            key,
            &["0.01", "1e6", "16"],
            &["0", "1e-9", "0.0099", "1.1e6", "-1", "nan", "inf"],
        );
    }
}

#[test]
fn clocks_from_10_mhz_to_100_ghz() {
    check(
        "system.sm_clock_ghz",
        &["0.01", "100", "2"],
        &["1e-6", "0.009", "100.5", "0"],
    );
    check("dram.tck_ps", &["10", "100000"], &["0", "1", "9", "100001"]);
}

#[test]
fn latencies_at_most_a_million_cycles() {
    for key in [
        "interconnect.latency",
        "noc.xbar_latency",
        "noc.sm_l2_latency",
        "l1.hit_latency",
        "l2.hit_latency",
        "sm.int_latency",
        "tlb.walk_latency",
        "placement.migration_cycles",
    ] {
        check(key, &["0", "1000000"], &["1000001", "4000000000"]);
    }
    check("dram.tcl_ns", &["0", "1e6"], &["1.1e6", "-1"]);
    check("dram.trefi_ns", &["1000", "3900"], &["1", "99"]);
}

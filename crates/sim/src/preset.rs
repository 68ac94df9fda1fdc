//! Building a [`Config`] from a preset, an optional user TOML file and `--set key=value`
//! overrides. Every layer is checked key by key against the full default configuration, so
//! an unknown key is an error that names it (and the nearest valid key), never ignored.

use crate::config::Config;
use crate::error::SimError;
use toml::Value;

/// A built-in preset: name, one-line description, TOML text, and the preset it extends.
#[derive(Debug)]
pub struct Preset {
    pub name: &'static str,
    pub about: &'static str,
    pub toml: &'static str,
    /// Applied first: a preset that only changes policies extends the machine preset, so
    /// the compared configurations of a paper cannot drift apart (coda-4gpu-coda once
    /// lacked coda-4gpu's instruction latencies).
    pub base: Option<&'static str>,
}

/// The built-in presets (files under `presets/`).
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "coda-4gpu",
        about: "CODA Table 1: 4 GPUs x 4 SMs, 16 GB/s hub links, FGP-Only + fair round-robin (baseline)",
        toml: include_str!("../../../presets/coda-4gpu.toml"),
        base: None,
    },
    Preset {
        name: "coda-4gpu-coda",
        about: "coda-4gpu with CODA placement (Eqs. 2-3) and affinity scheduling (Eq. 1)",
        toml: include_str!("../../../presets/coda-4gpu-coda.toml"),
        base: Some("coda-4gpu"),
    },
    Preset {
        name: "coda-centralized",
        about: "CODA Fig. 14: one 16-SM GPU, 4 local HBM stacks, memory-side 4 x 1 MB L2, 128 B stack interleave",
        toml: include_str!("../../../presets/coda-centralized.toml"),
        base: None,
    },
    Preset {
        name: "single-gpu",
        about: "one uniform 16-SM GPU with 4 MB L2 and 32 HBM channels, recent-generation instruction latencies",
        toml: include_str!("../../../presets/single-gpu.toml"),
        base: None,
    },
    Preset {
        name: "h100",
        about: "NVIDIA H100 SXM5: 132 SMs at 1.98 GHz, 256 KB L1, 50 MB L2, 3.35 TB/s HBM3 from public specifications; launch, dispatch and on-die latencies measured on the H200 (the same GH100 die)",
        toml: include_str!("../../../presets/h100.toml"),
        base: None,
    },
    Preset {
        name: "h200",
        about: "NVIDIA H200 SXM: the h100 die with a 60 MB L2 and 4.8 TB/s HBM3e (the GPU validation/gpu/h200 was measured on)",
        toml: include_str!("../../../presets/h200.toml"),
        base: Some("h100"),
    },
    Preset {
        name: "rec-4gpu",
        about: "REC Table 2: 4 GPUs x 64 CUs, 16 KB L1V, 2 MB 16-way L2, 64 B lines, 1 TB/s HBM, 300 GB/s all-to-all, 8K-entry 8-way line-fifo directory (--set directory.kind=rec)",
        toml: include_str!("../../../presets/rec-4gpu.toml"),
        base: None,
    },
    Preset {
        name: "ndp-8hmc",
        about: "NDP Table 2: 64-SM GPU at 700 MHz, 8 HMC stacks (16 vaults x 16 banks, DDR3-1333) in a 3-D hypercube, 20 GB/s GPU links, random 4 KB pages",
        toml: include_str!("../../../presets/ndp-8hmc.toml"),
        base: None,
    },
    Preset {
        name: "ndp-morecore",
        about: "ndp-8hmc with 72 SMs (NDP §6.3 Baseline_MoreCore)",
        toml: include_str!("../../../presets/ndp-morecore.toml"),
        base: Some("ndp-8hmc"),
    },
    Preset {
        name: "ndp-128sm",
        about: "ndp-8hmc with 128 SMs (NDP §7.6 more powerful GPU)",
        toml: include_str!("../../../presets/ndp-128sm.toml"),
        base: Some("ndp-8hmc"),
    },
    Preset {
        name: "k80",
        about: "NVIDIA Tesla K80, one GK210 die (HMS placement model): 13 SMs at 875 MHz, 1.5 MB L2, 6 GDDR5 controllers (240 GB/s), texture / constant caches, 32 shared banks, replays",
        toml: include_str!("../../../presets/k80.toml"),
        base: None,
    },
    Preset {
        name: "nuba-mem-uba",
        about: "NUBA Table 1 baseline: memory-side UBA, 64 SMs at 1.4 GHz, 6 MB LLC in 64 slices, every L1 miss over a 1.4 TB/s NoC, 720 GB/s HBM",
        toml: include_str!("../../../presets/nuba-mem-uba.toml"),
        base: None,
    },
    Preset {
        name: "nuba-sm-uba",
        about: "NUBA Fig. 1b: A100-like SM-side UBA, 2 LLC partitions of 32 slices caching all memory, directory coherence between them",
        toml: include_str!("../../../presets/nuba-sm-uba.toml"),
        base: Some("nuba-mem-uba"),
    },
    Preset {
        name: "nuba",
        about: "NUBA: 32 partitions of 2 SMs + 2 LLC slices + 1 channel, 2.8 TB/s local links, 1.4 TB/s LLC-to-LLC NoC, LAB placement, MDR replication",
        toml: include_str!("../../../presets/nuba.toml"),
        base: Some("nuba-mem-uba"),
    },
    Preset {
        name: "nuba-mcm",
        about: "NUBA §7.8 MCM-GPU: 4 modules x 16 NUBA partitions (128 SMs, 128 slices, 64 channels), 720 GB/s inter-module links",
        toml: include_str!("../../../presets/nuba-mcm.toml"),
        base: Some("nuba-mem-uba"),
    },
    Preset {
        name: "rec-nvidia",
        about: "REC Fig. 23: rec-4gpu with an NVIDIA-like GPU: 128 SMs, 128 KB L1, 72 MB L2, 128 B lines, REC range 2 KB",
        toml: include_str!("../../../presets/rec-nvidia.toml"),
        base: Some("rec-4gpu"),
    },
];

/// Find a preset by name.
pub fn find(name: &str) -> Result<&'static Preset, SimError> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        let hint = locus_workload::nearest(name, &names)
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        SimError::Config(format!(
            "unknown preset `{name}`{hint}; run `locus presets` to list them"
        ))
    })
}

/// Load a configuration: preset (or defaults when `None`), then the TOML file `file`
/// (path, text), then each `key=value` of `sets`. Validates the result.
pub fn load(
    preset: Option<&str>,
    file: Option<(&str, &str)>,
    sets: &[String],
) -> Result<Config, SimError> {
    let mut v = Value::try_from(Config::default())
        .map_err(|e| SimError::Config(format!("internal: default config: {e}")))?;
    let defaults = v.clone();
    if let Some(name) = preset {
        let p = find(name)?;
        for q in p.base.map(find).transpose()?.into_iter().chain([p]) {
            let layer: Value = toml::from_str(q.toml)
                .map_err(|e| SimError::Config(format!("preset {}: {e}", q.name)))?;
            merge(&mut v, &layer, "", &format!("preset {}", q.name))?;
        }
    }
    if let Some((path, text)) = file {
        let layer: Value =
            toml::from_str(text).map_err(|e| SimError::Config(format!("{path}: {e}")))?;
        merge(&mut v, &layer, "", path)?;
    }
    for s in sets {
        set(&mut v, s)?;
    }
    let cfg: Config = v
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| SimError::Config(value_error(&e, &v, &defaults)))?;
    cfg.validate().map_err(SimError::Config)?;
    Ok(cfg)
}

/// The value at dotted `key` of a TOML tree.
fn lookup<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    key.split('.').try_fold(v, |cur, k| cur.get(k))
}

/// A value as a user types it after `--set key=` (strings without quotes).
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The project's own wording for a value of the right key but the wrong kind, which serde
/// reports as e.g. "invalid type: string "abc", expected u32": the key, the value given,
/// what is expected and an example (the default), e.g.
/// ``system.nodes = abc: expected a whole number from 0 to 4294967295, e.g. --set system.nodes=4``.
fn value_error(e: &toml::de::Error, given: &Value, defaults: &Value) -> String {
    let text = e.to_string();
    let msg = e.message();
    let key = text
        .rsplit_once("in `")
        .and_then(|(_, k)| k.split_once('`'))
        .map(|(k, _)| k.to_string());
    let Some(key) = key else {
        return format!("configuration: {msg}");
    };
    let val = lookup(given, &key).map(plain).unwrap_or_default();
    // the node kinds of a heterogeneous machine (issue 7 §4) are lists: show their form
    match key.as_str() {
        "node_kinds" => {
            return format!(
                "node_kinds = {val}: {msg}; each kind is a table with `name` (required) and optionally sms, sm_clock_ghz, l1_bytes, l2_bytes, e.g. --set 'node_kinds=[{{name=\"gpu\"}},{{name=\"stack\",sms=0}}]'"
            )
        }
        "system.node_kinds" => {
            return format!(
                "system.node_kinds = {val}: expected a list of kind names, one per node, e.g. --set 'system.node_kinds=[\"gpu\",\"stack\"]'"
            )
        }
        _ => {}
    }
    let default = lookup(defaults, &key);
    let width = ["u8", "u16", "u32", "u64", "usize"]
        .into_iter()
        .find(|t| msg.ends_with(&format!("expected {t}")));
    // serde: "unknown variant `x`, expected one of `a`, `b`, `c`" or "... expected `a` or `b`"
    let variants = msg
        .strip_prefix("unknown variant ")
        .and_then(|m| m.split_once("expected "))
        .map(|(_, c)| c.trim_start_matches("one of ").replace("` or `", "`, `"));
    let what = if let Some(choices) = variants {
        format!("one of {}", choices.replace('`', ""))
    } else {
        match (default, width) {
            (_, Some(t)) => {
                let max = match t {
                    "u8" => u8::MAX as u64,
                    "u16" => u16::MAX as u64,
                    "u32" => u32::MAX as u64,
                    _ => u64::MAX,
                };
                format!("a whole number from 0 to {max}")
            }
            (Some(Value::Integer(_)), None) => "a whole number".to_string(),
            (Some(Value::Float(_)), None) => "a number".to_string(),
            (Some(Value::Boolean(_)), None) => "true or false".to_string(),
            (Some(Value::String(_)), None) => "a word".to_string(),
            _ => msg.to_string(),
        }
    };
    let example = default
        .map(|d| format!(", e.g. --set {key}={}", plain(d)))
        .unwrap_or_default();
    format!("{key} = {val}: expected {what}{example}")
}

fn keys_of(t: &toml::map::Map<String, Value>) -> Vec<&str> {
    t.keys().map(|k| k.as_str()).collect()
}

fn unknown(path: &str, key: &str, t: &toml::map::Map<String, Value>, origin: &str) -> SimError {
    let full = if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    };
    if full == "l2.flush_remote_at_kernel_end" {
        return SimError::Config(format!(
            "{origin}: `l2.flush_remote_at_kernel_end` was replaced by `l2.kernel_boundary`: write l2.kernel_boundary = \"flush-remote\" for true, \"none\" for false (or \"keep-clean-remote\")"
        ));
    }
    if full == "coherence.directory" {
        return SimError::Config(format!(
            "{origin}: `coherence.directory` moved to the `[directory]` section: write directory.kind = \"ideal\" (was \"full-map\"), \"line-fifo\", \"hmg\" or \"rec\", e.g. --set directory.kind=rec"
        ));
    }
    let hint = locus_workload::nearest(key, &keys_of(t))
        .map(|n| {
            format!(
                " (did you mean `{}`?)",
                if path.is_empty() {
                    n.to_string()
                } else {
                    format!("{path}.{n}")
                }
            )
        })
        .unwrap_or_default();
    SimError::Config(format!(
        "{origin}: unknown configuration key `{full}`{hint}; valid keys here: {}",
        keys_of(t).join(", ")
    ))
}

fn merge(base: &mut Value, layer: &Value, path: &str, origin: &str) -> Result<(), SimError> {
    let (Value::Table(b), Value::Table(l)) = (base, layer) else {
        return Ok(());
    };
    for (k, lv) in l {
        let full = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        if path == "place" {
            // object names are the workload's: any key, checked when the run starts
            b.insert(k.clone(), lv.clone());
            continue;
        }
        let Some(bv) = b.get_mut(k) else {
            return Err(unknown(path, k, b, origin));
        };
        match (bv.is_table(), lv.is_table()) {
            (true, true) => merge(bv, lv, &full, origin)?,
            (true, false) => {
                return Err(SimError::Config(format!(
                    "{origin}: `{full}` is a section; set its fields, e.g. `{full}.<field>`"
                )))
            }
            _ => *bv = coerce(bv, lv.clone()),
        }
    }
    Ok(())
}

/// Integers given where floats are expected (e.g. `link_gbps = 32`) are accepted.
fn coerce(old: &Value, new: Value) -> Value {
    match (old, &new) {
        (Value::Float(_), Value::Integer(i)) => Value::Float(*i as f64),
        _ => new,
    }
}

/// Apply one `a.b.c=value` override. The value is parsed as TOML (number, bool, string,
/// array); a bare word is taken as a string.
pub fn set(v: &mut Value, s: &str) -> Result<(), SimError> {
    let Some((key, raw)) = s.split_once('=') else {
        return Err(SimError::Config(format!(
            "--set `{s}`: expected key=value, e.g. --set interconnect.link_gbps=32"
        )));
    };
    let key = key.trim();
    let raw = raw.trim();
    let val: Value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = v;
    let mut path = String::new();
    for (i, p) in parts.iter().enumerate() {
        let Value::Table(t) = cur else {
            return Err(SimError::Config(format!(
                "--set {key}: `{path}` is not a section"
            )));
        };
        if path == "place" && i + 1 == parts.len() {
            // `place.<object>=<space>`: object names are the workload's
            t.insert(p.to_string(), val);
            return Ok(());
        }
        if !t.contains_key(*p) {
            return Err(unknown(&path, p, t, "--set"));
        }
        let next = t.get_mut(*p).expect("checked above");
        if i + 1 == parts.len() {
            if next.is_table() {
                return Err(SimError::Config(format!(
                    "--set {key}: `{key}` is a section; set one of its fields"
                )));
            }
            *next = coerce(next, val);
            return Ok(());
        }
        path = if path.is_empty() {
            p.to_string()
        } else {
            format!("{path}.{p}")
        };
        cur = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_and_validate() {
        for p in PRESETS {
            load(Some(p.name), None, &[]).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
    }

    /// REC Fig. 23's NVIDIA-like machine changes only what rec.md §4.4 names (SMs, L1,
    /// L2, line size, REC range) and the L2 slicing that 72 MB needs; everything else is
    /// rec-4gpu's (a key the base gains later cannot silently differ here).
    #[test]
    fn rec_nvidia_is_rec_4gpu_with_the_section_4_4_changes() {
        let base = load(Some("rec-4gpu"), None, &[]).unwrap();
        let mut nv = load(Some("rec-nvidia"), None, &[]).unwrap();
        assert_eq!(
            (nv.system.sms_per_node, nv.system.line_bytes, nv.l1.bytes),
            (128, 128, 131072)
        );
        assert_eq!(nv.l2.bytes_per_node, 72 << 20);
        assert_eq!(nv.directory.range_bytes / nv.system.line_bytes as u64, 16);
        nv.system.name = base.system.name.clone();
        nv.system.sms_per_node = base.system.sms_per_node;
        nv.system.line_bytes = base.system.line_bytes;
        nv.l1.bytes = base.l1.bytes;
        nv.l2.bytes_per_node = base.l2.bytes_per_node;
        nv.l2.slices_per_node = base.l2.slices_per_node;
        nv.directory.range_bytes = base.directory.range_bytes;
        assert_eq!(
            toml::to_string(&nv).unwrap(),
            toml::to_string(&base).unwrap()
        );
    }

    /// CODA's compared configurations are one machine: `coda-4gpu-coda` differs from
    /// `coda-4gpu` only in its name and its placement and scheduling policies (before
    /// presets had a base, it silently lacked the Fermi-class instruction latencies, which
    /// inflated every CODA speedup once kernels computed).
    #[test]
    fn coda_preset_is_the_baseline_machine_with_codas_policies() {
        let base = load(Some("coda-4gpu"), None, &[]).unwrap();
        let mut coda = load(Some("coda-4gpu-coda"), None, &[]).unwrap();
        assert_eq!(coda.placement.policy, crate::config::PlacementPolicy::Coda);
        assert_eq!(coda.scheduling.policy, crate::config::SchedPolicy::Affinity);
        coda.system.name = base.system.name.clone();
        coda.placement.policy = base.placement.policy;
        coda.scheduling.policy = base.scheduling.policy;
        assert_eq!(
            toml::to_string(&coda).unwrap(),
            toml::to_string(&base).unwrap()
        );
    }

    #[test]
    fn set_overrides_and_coerces() {
        let c = load(
            Some("coda-4gpu"),
            None,
            &[
                "interconnect.link_gbps=32".into(),
                "placement.policy=cgp".into(),
            ],
        )
        .unwrap();
        assert_eq!(c.interconnect.link_gbps, 32.0);
        assert_eq!(c.placement.policy, crate::config::PlacementPolicy::Cgp);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = load(Some("coda-4gpu"), None, &["interconect.link_gbps=3".into()]).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("interconect") && m.contains("did you mean `interconnect`"),
            "{m}"
        );
        let e = load(None, Some(("my.toml", "[l2]\nbites_per_node = 3\n")), &[]).unwrap_err();
        assert!(
            e.to_string().contains("my.toml") && e.to_string().contains("l2.bites_per_node"),
            "{e}"
        );
    }

    /// serde's wording ("invalid type: string \"abc\", expected u32") is replaced by the key,
    /// the value, what is expected and an example.
    #[test]
    fn wrong_kinds_of_value_are_explained_in_our_words() {
        let msg = |set: &str| {
            load(None, None, &[set.to_string()])
                .unwrap_err()
                .to_string()
        };
        let m = msg("system.nodes=abc");
        assert!(
            m.contains("system.nodes = abc: expected a whole number from 0 to 4294967295")
                && m.contains("e.g. --set system.nodes=4"),
            "{m}"
        );
        let m = msg("system.nodes=-1");
        assert!(
            m.contains("system.nodes = -1: expected a whole number"),
            "{m}"
        );
        let m = msg("interconnect.link_gbps=fast");
        assert!(
            m.contains("interconnect.link_gbps = fast: expected a number, e.g. --set interconnect.link_gbps=16"),
            "{m}"
        );
        let m = msg("placement.policy=foo");
        assert!(
            m.contains("placement.policy = foo: expected one of fgp, cgp, first-touch")
                && m.contains("--set placement.policy=fgp"),
            "{m}"
        );
        let m = msg("sm.warp_scheduler=fifo");
        assert!(
            m.contains("sm.warp_scheduler = fifo: expected one of gto, lrr"),
            "two variants: {m}"
        );
        let m = msg("l1.enabled=7");
        assert!(m.contains("l1.enabled = 7: expected true or false"), "{m}");
        for m in [msg("system.nodes=abc"), msg("placement.policy=foo")] {
            assert!(!m.contains("invalid type") && !m.contains("variant"), "{m}");
        }
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(load(None, None, &["system.nodes=3".into()])
            .unwrap_err()
            .to_string()
            .contains("system.nodes"));
        assert!(load(None, None, &["placement.policy=nowhere".into()]).is_err());
        assert!(load(None, Some(("x.toml", "[system\n")), &[])
            .unwrap_err()
            .to_string()
            .contains("x.toml"));
        assert!(find("coda4gpu")
            .unwrap_err()
            .to_string()
            .contains("coda-4gpu"));
    }
}

//! `hpa tune` end to end: it finds the best setting of a load built so that the best is known,
//! its output does not depend on the number of threads, the manifest it writes passes `hpa
//! validate`, bad `--space` files and unmeetable constraints are refused with clear messages.
//! Loads are short and budgets small, so these run in seconds.

use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/cli.rs"]
mod support;
use support::{command_words, fresh_dir, hpa, marked_block, repo, stdout_of, write};

/// A fresh directory for one test.
fn dir(test: &str) -> PathBuf {
    fresh_dir("tune", test)
}

/// 50 % of a 1-core request, so 2 cores need 4 pods and 8 cores 16.
const HPA: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: worker
  namespace: shop
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 1
  maxReplicas: 40
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 50}
";

/// Spikes from 2 to 8 cores lasting 60 s every 330 s, 22 of them, then 30 minutes at 2.
///
/// Evaluations are 15 s apart and a spike starts on one, so the HPA's last high
/// recommendation of a spike comes 45 s after its start and the next spike's first 330 s
/// after it: 285 s apart. A scale-down window `w` keeps the high recommendation over the gap
/// when `t + w > now` holds for every evaluation before the next spike (the last at +315 s),
/// that is `w > 270 s`. With any shorter window the pool shrinks between spikes and grows at
/// each: two direction reversals every 330 s. The longer windows keep the pool for the
/// spikes alike and differ at the end only, where a shorter window releases the pods sooner.
/// So the fewest pod-hours without flapping is the window just over 270 s; among multiples of
/// 30 s, 300 s; and a scale-down policy of 100 % releases them in one step, sooner than 10 %.
fn spiky_load() -> String {
    let mut text = String::from("time,cpu\n0,2\n");
    let mut t = 60;
    for _ in 0..22 {
        text.push_str(&format!("{t},2\n{t},8\n{},8\n{},2\n", t + 60, t + 60));
        t += 330;
    }
    text.push_str(&format!("{},2\n", t + 1800));
    text
}

/// Every parameter fixed but the scale-down window (0 to 600 s by 30 s) and its Percent
/// policy (10 or 100): 42 settings.
const SPACE: &str = "\
scaleUp:
  stabilizationWindowSeconds: [0]
  percent: [100]
  percentPeriodSeconds: [15]
  pods: [0]
  podsPeriodSeconds: [15]
  selectPolicy: [Max]
  tolerance: [0.1]
scaleDown:
  stabilizationWindowSeconds: {min: 0, max: 600, step: 30}
  percent: [10, 100]
  percentPeriodSeconds: [15]
  pods: [0]
  podsPeriodSeconds: [15]
  selectPolicy: [Max]
  tolerance: [0.1]
";

/// The files of the known-optimum search, in `dir`.
fn spiky(dir: &Path) {
    write(dir, "hpa.yaml", HPA);
    write(dir, "load.csv", &spiky_load());
    write(dir, "space.yaml", SPACE);
}

/// `hpa tune` on the spiky load with `extra` arguments: no more than 2 reversals in its
/// 2.5 hours (20 a day), no constraint on the time above target.
fn tune_spiky(dir: &Path, extra: &[&str]) -> Output {
    tune_spiky_under(dir, "100", "20", extra)
}

/// `hpa tune` on the spiky load under `--max-above` and `--max-reversals-per-day`.
fn tune_spiky_under(dir: &Path, above: &str, reversals: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "tune",
        "--hpa",
        "hpa.yaml",
        "--load",
        "load.csv",
        "--space",
        "space.yaml",
        "--max-above",
        above,
        "--max-reversals-per-day",
        reversals,
    ];
    args.extend_from_slice(extra);
    hpa(&args, dir)
}

#[test]
fn finds_the_best_setting_of_a_load_built_for_it() {
    let dir = dir("known-optimum");
    spiky(&dir);
    // Fewer candidates than settings (20 of 42): random sampling, then refinement. Several
    // seeds, so the result is the method's, not one lucky draw's.
    for seed in ["1", "2", "3", "4"] {
        let out = tune_spiky(
            &dir,
            &["--candidates", "20", "--seed", seed, "--out", "out.yaml"],
        );
        let text = stdout_of(&out);
        assert!(
            text.contains("search: 20 of about 42 settings"),
            "seed {seed}:\n{text}"
        );
        assert!(
            text.contains("Chosen: setting #")
                && text.contains("\n  up 0s [100%/15s] tol 0.1; down 300s [100%/15s] tol 0.1\n"),
            "seed {seed}:\n{text}"
        );
        let written = std::fs::read_to_string(dir.join("out.yaml")).unwrap();
        assert!(
            written.contains("  behavior:\n    scaleUp:\n      stabilizationWindowSeconds: 0\n")
                && written.contains("    scaleDown:\n      stabilizationWindowSeconds: 300\n"),
            "{written}"
        );
    }
    // The whole space agrees, and so does it when settings stop at their first broken
    // constraint.
    let chosen = "\n  up 0s [100%/15s] tol 0.1; down 300s [100%/15s] tol 0.1\n";
    let text = stdout_of(&tune_spiky(&dir, &["--candidates", "42"]));
    assert!(
        text.contains("search: the whole space (42 settings)"),
        "{text}"
    );
    assert!(text.contains(chosen), "{text}");
    let text = stdout_of(&tune_spiky(&dir, &["--candidates", "42", "--prune"]));
    // The windows up to 270 s flap: 10 windows, 2 policies.
    assert!(
        text.contains(
            "search: the whole space (42 settings); 20 stopped early for breaking a \
             constraint (--prune)"
        ),
        "{text}"
    );
    assert!(text.contains(chosen), "{text}");
}

#[test]
fn the_output_does_not_depend_on_the_threads() {
    let mut outputs = Vec::new();
    for threads in ["1", "3"] {
        let dir = dir(&format!("threads-{threads}"));
        spiky(&dir);
        let text = stdout_of(&tune_spiky(
            &dir,
            &[
                "--candidates",
                "25",
                "--threads",
                threads,
                "--out",
                "out.yaml",
                "--plot",
                "plot.svg",
            ],
        ));
        let written = std::fs::read(dir.join("out.yaml")).unwrap();
        let svg = std::fs::read(dir.join("plot.svg")).unwrap();
        outputs.push((text, written, svg));
    }
    assert!(outputs[0] == outputs[1], "--threads 1 and 3 differ");
    // The SVG shows what a person needs: the axes, the limit, the input and the chosen point.
    let svg = String::from_utf8(outputs[0].2.clone()).unwrap();
    for text in [
        "pod-hours",
        "time above target",
        "input manifest",
        "chosen",
        "Pareto front",
    ] {
        assert!(svg.contains(text), "{text} not in the plot");
    }
}

#[test]
fn the_written_manifest_passes_validate_and_keeps_the_object() {
    let dir = dir("validate");
    spiky(&dir);
    let text = stdout_of(&tune_spiky(
        &dir,
        &["--candidates", "10", "--out", "tuned.yaml"],
    ));
    let written = std::fs::read_to_string(dir.join("tuned.yaml")).unwrap();
    assert!(written.starts_with("# Tuned by `hpa tune`"), "{written}");
    for line in [
        "# Objective: minimise pod-hours subject to time above target <= 100 % and at most 20 \
         direction reversals a day.",
        "# Search: 10 settings simulated, seed 1.",
        "apiVersion: autoscaling/v2",
        "  namespace: shop",
    ] {
        assert!(
            written.contains(&format!("{line}\n")),
            "{line:?} not in\n{written}"
        );
    }
    let out = hpa(&["validate", "tuned.yaml"], &dir);
    let validated = stdout_of(&out);
    assert!(validated.contains("valid autoscaling/v2 HorizontalPodAutoscaler \"worker\""));
    // The comparison, as `hpa simulate --compare` prints it, on the tuned manifest.
    let simulated = stdout_of(&hpa(
        &[
            "simulate",
            "--hpa",
            "hpa.yaml",
            "--compare",
            "tuned.yaml",
            "--load",
            "load.csv",
            "--no-events",
        ],
        &dir,
    ));
    let rows = |text: &str| -> Vec<String> {
        let table = text.split("\nSummary").nth(1).unwrap();
        table
            .lines()
            .filter(|l| l.contains("pod-seconds") || l.contains("reversals"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .map(|l| l.replace("tuned.yaml", "").replace("hpa.yaml", ""))
            .collect()
    };
    assert_eq!(rows(&text), rows(&simulated));
}

#[test]
fn bad_space_files_are_refused() {
    let dir = dir("bad-space");
    spiky(&dir);
    for (space, message) in [
        (
            "scaleUp: {window: [0]}",
            "--space space.yaml: scaleUp.window: unknown parameter",
        ),
        (
            "scaleDown: {stabilizationWindowSeconds: [0, 4000]}",
            "scaleDown.stabilizationWindowSeconds: 4000 is out of range [0, 3600]",
        ),
        (
            "scaleDown: {percent: {min: 10, max: 5, step: 1}}",
            "scaleDown.percent: max (5) is below min (10)",
        ),
        (
            "scaleUp: {selectPolicy: [Fastest]}",
            "expected Max, Min or Disabled",
        ),
        ("scaleUp: {tolerance: [0.0001]}", "at most 3 decimals"),
        ("[0, 1]", "expected a mapping with scaleUp"),
        (
            "scaleUp: [0, 1]",
            "scaleUp: expected a mapping of parameters",
        ),
        (
            "minReplicas: [50]",
            "minReplicas: every value exceeds maxReplicas (at most 40)",
        ),
        ("scaleUp: {pods: []}", "scaleUp.pods: no values"),
    ] {
        write(&dir, "space.yaml", space);
        let out = tune_spiky(&dir, &["--candidates", "5", "--out", "never.yaml"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{space}: {stderr}");
        assert!(stderr.contains(message), "{space}: {stderr}");
        assert!(out.stdout.is_empty());
        assert!(!dir.join("never.yaml").exists());
    }
    let out = tune_spiky(&dir, &["--candidates", "0"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--candidates: must be between 1"));
    let out = hpa(
        &[
            "tune",
            "--hpa",
            "hpa.yaml",
            "--load",
            "load.csv",
            "--max-above",
            "101",
        ],
        &dir,
    );
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--max-above: expected a percentage between 0 and 100, got \"101\""));
}

#[test]
fn unmeetable_constraints_name_the_constraint_and_the_closest_setting() {
    let dir = dir("infeasible");
    spiky(&dir);
    let out = tune_spiky_under(
        &dir,
        "0",
        "0",
        &["--candidates", "8", "--out", "never.yaml"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with(
            "hpa tune: no setting of the 8 simulated meets the constraints; the closest ("
        ),
        "{stderr}"
    );
    assert!(stderr.contains("> --max-above 0 %"), "{stderr}");
    assert!(stderr.contains("> --max-reversals-per-day 0"), "{stderr}");
    // The front is still printed; no manifest is written.
    assert!(String::from_utf8_lossy(&out.stdout).contains("Pareto front"));
    assert!(!dir.join("never.yaml").exists());
}

/// docs/tune.md's worked example (its output, the manifest it writes, committed under
/// examples/manifests, and its picture, committed under docs/img) is what the tool produces
/// today.
#[test]
fn tune_guide_example_is_current() {
    let root = repo();
    let guide = std::fs::read_to_string(root.join("docs/tune.md")).expect("docs/tune.md");
    let block = |name: &str| marked_block(&guide, name);
    let words = command_words(&block("tune-command"));
    let after = |flag: &str| {
        words
            .iter()
            .skip_while(|w| *w != flag)
            .nth(1)
            .unwrap_or_else(|| panic!("the guide's command has {flag}"))
            .clone()
    };
    let (committed_out, committed_plot) = (after("--out"), after("--plot"));
    let d = dir("guide");
    let (out, plot) = (d.join("tuned.yaml"), d.join("tune.svg"));
    let (out_arg, plot_arg) = (out.to_string_lossy(), plot.to_string_lossy());
    let args: Vec<&str> = words
        .iter()
        .map(|w| {
            if *w == committed_out {
                &out_arg
            } else if *w == committed_plot {
                &plot_arg
            } else {
                w.as_str()
            }
        })
        .collect();
    let text = stdout_of(&hpa(&args, &root)).replace(out_arg.as_ref(), &committed_out);
    assert_eq!(
        text,
        block("tune-output"),
        "docs/tune.md's output is out of date"
    );
    let written = std::fs::read_to_string(&out).expect("the written manifest");
    assert_eq!(written, block("tune-manifest"));
    let committed = std::fs::read_to_string(root.join(&committed_out)).expect(&committed_out);
    assert_eq!(written, committed, "{committed_out} is out of date");
    let fresh = std::fs::read(&plot).expect("plot");
    let committed = std::fs::read(root.join(&committed_plot)).expect("the committed plot");
    assert!(
        fresh == committed,
        "{committed_plot} is out of date: rerun the command in docs/tune.md"
    );
}

//! Headless Chromium for the pages' tests (`transcript --html`, `usage --html`): the DOM
//! of a page once loaded, and Chromium's network log. Without Chromium (`chromium`, or
//! `CHROMIUM=/path`) the tests say they skipped, and fail under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::prerequisite;

/// Headless Chromium, when installed.
pub struct Browser {
    program: PathBuf,
    profile: tempfile::TempDir,
}

pub fn browser() -> Option<Browser> {
    let program = std::env::var_os("CHROMIUM").map(PathBuf::from).or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find(|p| {
                Command::new(p)
                    .arg("--version")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            })
            .map(PathBuf::from)
    });
    let Some(program) = program else {
        prerequisite::missing("no Chromium (install the `chromium` package, or set CHROMIUM)");
        return None;
    };
    Some(Browser {
        program,
        profile: tempfile::tempdir().unwrap(),
    })
}

impl Browser {
    /// The DOM of `page` once loaded and its script run; Chromium's network log to
    /// `netlog` when given.
    pub fn dom(&self, page: &Path, netlog: Option<&Path>) -> String {
        self.dom_at(page, "", netlog)
    }

    /// The DOM of `page` opened at `#fragment`.
    pub fn dom_at(&self, page: &Path, fragment: &str, netlog: Option<&Path>) -> String {
        let mut cmd = Command::new(&self.program);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", self.profile.path().display()));
        if let Some(netlog) = netlog {
            cmd.arg(format!("--log-net-log={}", netlog.display()));
        }
        let out_file = self.profile.path().join("dom.html");
        let mut child = cmd
            .arg("--dump-dom")
            .arg(format!("file://{}{fragment}", page.display()))
            .stdout(std::fs::File::create(&out_file).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "chromium failed on {}", page.display());
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("chromium took over 2 minutes on {}", page.display());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        std::fs::read_to_string(out_file).unwrap()
    }
}

//! `--plot` for the table: GB/s against file size, end to end beside in
//! memory, drawn with the crate's series and legend.

use std::path::Path;

use plotters::prelude::*;

use super::row::TableRow;
use super::side::{Dir, Workload};
use super::text::{dir_name, human};
use crate::plot::{legend, series};

/// Two panels, end to end (with the plain copy) and in memory: GB/s
/// against file size, a line per workload, direction and side.
pub(super) fn plot(path: &Path, title: &str, rows: &[TableRow]) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    if rows.is_empty() {
        return Err("nothing to plot".into());
    }
    let root = SVGBackend::new(path, (1280, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 16)).map_err(e)?;
    let panels = root.split_evenly((1, 2));
    let xmin = rows.iter().map(|r| r.size).min().unwrap_or(1) as f64;
    let xmax = (rows.iter().map(|r| r.size).max().unwrap_or(2) as f64).max(xmin * 2.0);
    for (panel, mem) in panels.iter().zip([false, true]) {
        let ymax = rows
            .iter()
            .flat_map(|r| {
                let mut v = vec![
                    r.gbps(r.cpu.get(Dir::Enc, mem)),
                    r.gbps(r.cpu.get(Dir::Dec, mem)),
                ];
                if let Some(g) = r.gpu {
                    v.extend([r.gbps(g.get(Dir::Enc, mem)), r.gbps(g.get(Dir::Dec, mem))]);
                }
                if !mem {
                    v.push(r.gbps(r.copy_s));
                }
                v
            })
            .fold(1e-3, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(panel)
            .caption(
                if mem {
                    "in memory (crypt alone)"
                } else {
                    "end to end (read, crypt, write)"
                },
                ("sans-serif", 14),
            )
            .margin(10)
            .x_label_area_size(32)
            .y_label_area_size(52)
            .build_cartesian_2d((xmin..xmax).log_scale(), 0f64..ymax)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("file bytes")
            .y_desc("GB/s")
            .x_label_formatter(&|x| human(*x as usize))
            .draw()
            .map_err(e)?;
        let mut k = 0;
        for w in [Workload::Ecb, Workload::File] {
            for d in [Dir::Enc, Dir::Dec] {
                for gpu in [false, true] {
                    let pts: Vec<(f64, f64)> = rows
                        .iter()
                        .filter(|r| r.workload == w)
                        .filter_map(|r| {
                            let t = if gpu {
                                r.gpu?.get(d, mem)
                            } else {
                                r.cpu.get(d, mem)
                            };
                            Some((r.size as f64, r.gbps(t)))
                        })
                        .collect();
                    if !pts.is_empty() {
                        let side = if gpu { "GPU" } else { "CPU" };
                        let label = format!("{} {} {side}", w.short(), dir_name(d));
                        series(&mut chart, pts, k, &label)?;
                    }
                    k += 1;
                }
            }
        }
        if !mem {
            // One copy line: the ECB rows' (the file rows copy the same file).
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.workload == Workload::Ecb)
                .map(|r| (r.size as f64, r.gbps(r.copy_s)))
                .collect();
            series(&mut chart, pts, k, "plain copy")?;
        }
        legend(&mut chart)?;
    }
    root.present().map_err(|e| e.to_string())
}

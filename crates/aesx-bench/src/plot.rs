//! `--plot FILE.svg`: throughput against message size (log x), one line per
//! implementation, one panel per mode and key size.
//!
//! plotters is built with its SVG backend only and without its font
//! features, so text becomes SVG `<text>` elements that the viewer renders:
//! no fontconfig or system font is needed to build or run this.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::cases::Mode;
use super::report::{Meta, Row};
use aesx_file::CommandError;

/// Draws the rows (median GB/s) into an SVG file.
pub fn write(path: &Path, meta: &Meta, rows: &[Row]) -> Result<(), CommandError> {
    draw(path, meta, rows).map_err(|e| CommandError::failure(format!("{}: {e}", path.display())))
}

/// A row's line in a plot: the implementation, and its threads when more
/// than one (with `--threads`, aesx runs a case both ways).
fn series_name(r: &Row) -> String {
    if r.threads > 1 {
        format!("{} x{} threads", r.imp, r.threads)
    } else {
        r.imp.clone()
    }
}

fn draw(path: &Path, meta: &Meta, rows: &[Row]) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    // Panels in report order; implementations keep one colour everywhere.
    let mut panels: Vec<(Mode, u32)> = Vec::new();
    let mut impls: Vec<String> = Vec::new();
    for r in rows {
        if !panels.contains(&(r.mode, r.key_bits)) {
            panels.push((r.mode, r.key_bits));
        }
        if !impls.contains(&series_name(r)) {
            impls.push(series_name(r));
        }
    }
    if panels.is_empty() {
        return Err("nothing to plot".into());
    }
    let mut keys: Vec<u32> = panels.iter().map(|p| p.1).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut modes: Vec<Mode> = Vec::new();
    for p in &panels {
        if !modes.contains(&p.0) {
            modes.push(p.0);
        }
    }
    let (nrows, ncols) = (modes.len(), keys.len());
    let size = (520 * ncols as u32, 360 * nrows as u32 + 40);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let root = root
        .titled(
            &format!("aesx bench: {}, {}", meta.cpu, meta.date),
            ("sans-serif", 20),
        )
        .map_err(e)?;
    let areas = root.split_evenly((nrows, ncols));
    for (ri, &mode) in modes.iter().enumerate() {
        for (ci, &key) in keys.iter().enumerate() {
            let area = &areas[ri * ncols + ci];
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| r.mode == mode && r.key_bits == key)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let xmin = mine.iter().map(|r| r.size).min().unwrap_or(16) as f64;
            let xmax = mine.iter().map(|r| r.size).max().unwrap_or(16) as f64;
            let (xmin, xmax) = if xmax > xmin {
                (xmin, xmax)
            } else {
                (xmin / 2.0, xmax * 2.0)
            };
            let ymax = mine
                .iter()
                .map(|r| r.gb_per_s)
                .fold(0.0, f64::max)
                .max(1e-3)
                * 1.1;
            let mut chart = ChartBuilder::on(area)
                .caption(format!("{mode}, AES-{key}"), ("sans-serif", 16))
                .margin(10)
                .x_label_area_size(32)
                .y_label_area_size(48)
                .build_cartesian_2d((xmin..xmax).log_scale(), 0f64..ymax)
                .map_err(e)?;
            chart
                .configure_mesh()
                .x_desc("message bytes")
                .y_desc("GB/s (median)")
                .x_label_formatter(&|x| human_size(*x))
                .draw()
                .map_err(e)?;
            for (k, imp) in impls.iter().enumerate() {
                let mut pts: Vec<(f64, f64)> = mine
                    .iter()
                    .filter(|r| series_name(r) == *imp)
                    .map(|r| (r.size as f64, r.gb_per_s))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                series(&mut chart, pts, k, imp)?;
            }
            legend(&mut chart)?;
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

/// A chart of throughput (GB/s) against size in bytes on a log scale.
pub(super) type SizeChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, RangedCoordf64>>;

/// Draws `pts` as a line with dots in palette colour `k`, under `label` in
/// the legend.
pub(super) fn series<'a, DB: DrawingBackend + 'a>(
    chart: &mut SizeChart<'a, DB>,
    pts: Vec<(f64, f64)>,
    k: usize,
    label: &str,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    let color = Palette99::pick(k).to_rgba();
    chart
        .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
        .map_err(e)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    chart
        .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
        .map_err(e)?;
    Ok(())
}

/// Draws the legend of the series, upper left.
pub(super) fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut SizeChart<'a, DB>,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

fn human_size(x: f64) -> String {
    if x >= (1 << 20) as f64 {
        format!("{:.0}M", x / (1 << 20) as f64)
    } else if x >= 1024.0 {
        format!("{:.0}K", x / 1024.0)
    } else {
        format!("{x:.0}")
    }
}

import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { UsageSeries } from "./usage.js";

/** The theme's colours, read when the chart is drawn (the dark theme has its own). */
function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/**
 * Yes and no per hour, drawn with uPlot (a canvas: small and quick with thousands of points). The
 * canvas is an image to assistive technology; the same numbers are in the table beside it.
 */
export default function UsageChart({ series, label }: { series: UsageSeries; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const axis = { stroke: themeColor("--muted"), grid: { stroke: themeColor("--border"), width: 1 }, ticks: { show: false } };
    const chart = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 200,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        axes: [axis, axis],
        series: [{}, { label: "yes", stroke: themeColor("--on"), width: 2 }, { label: "no", stroke: themeColor("--danger"), width: 2 }],
      },
      [series.hours, series.yes, series.no],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, element.clientWidth), height: 200 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [series]);
  return <div ref={box} className="usage-chart" role="img" aria-label={label} />;
}

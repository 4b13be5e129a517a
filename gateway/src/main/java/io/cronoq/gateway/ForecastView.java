package io.cronoq.gateway;

import io.cronoq.scheduler.policy.forecast.Forecast;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * When a pool's backlog clears, from its last forecast: how many waiting tasks start in each span of
 * time ahead, and the first to start with their estimates.
 *
 * @param pool      the pool
 * @param madeAt    when the forecast was made (at most a second or so ago)
 * @param reached   how far ahead its futures ran ({@code null}: until nothing more happened)
 * @param futures   how many futures it sampled
 * @param waiting   how many waiting tasks it estimated
 * @param unknown   of those, how many it can say no start for
 * @param backlog   spans of time from {@code madeAt}, each with the tasks whose median start falls in it
 * @param first     the first waiting tasks to start, by median start, each with its estimate
 */
public record ForecastView(String pool, String madeAt, String reached, int futures, long waiting, long unknown,
                           List<BinView> backlog, List<TaskEstimateView> first) {

    /** How many spans the backlog is cut into. */
    static final int BINS = 24;

    /** A span of time: {@code starting} tasks start in it; {@code stillWaiting} wait past its end. */
    public record BinView(String from, String to, long starting, long stillWaiting) {}

    /** One waiting task's estimate, as in its own view's {@code waiting}. */
    public record TaskEstimateView(String id, Long position, TaskView.StartView estimatedStart, String estimate) {}

    static ForecastView of(Forecast f, int limit) {
        Forecast.Backlog backlog = f.backlog(BINS);
        List<BinView> bins = new ArrayList<>(backlog.bins().size());
        for (Forecast.Backlog.Bin b : backlog.bins()) {
            bins.add(new BinView(ViewMapper.text(b.from()), ViewMapper.text(b.to()), b.starting(), b.stillWaiting()));
        }
        List<Map.Entry<String, Forecast.Estimate>> known = new ArrayList<>();
        for (Map.Entry<String, Forecast.Estimate> e : f.estimates().entrySet()) {
            if (e.getValue().known()) {
                known.add(e);
            }
        }
        known.sort(Comparator.comparing((Map.Entry<String, Forecast.Estimate> e) -> e.getValue().p50())
                .thenComparing(Map.Entry::getKey));
        List<TaskEstimateView> first = new ArrayList<>(Math.min(limit, known.size()));
        for (Map.Entry<String, Forecast.Estimate> e : known.subList(0, Math.min(limit, known.size()))) {
            Forecast.Estimate est = e.getValue();
            first.add(new TaskEstimateView(e.getKey(), est.position(), TaskView.StartView.of(est), est.reason()));
        }
        return new ForecastView(f.pool(), ViewMapper.text(f.madeAt()), ViewMapper.text(f.reached()), f.futures(),
                f.estimates().size(), backlog.unknown(), bins, first);
    }
}

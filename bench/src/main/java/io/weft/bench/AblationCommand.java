package io.weft.bench;

import io.weft.config.SmcConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code weft bench ablation}: the Spindle paper's incremental table in one invocation: baseline, then delivery,
 * receive and send batching, null-sends and early lock release added one at a time.
 */
@Command(name = "ablation", description = "Run the Spindle incremental ablation table in one invocation.")
final class AblationCommand implements Callable<Integer>
{
    static final Map<String, SmcConfig> ROWS = new LinkedHashMap<>();

    static
    {
        ROWS.put("baseline", new SmcConfig(false, false, false, false, false));
        ROWS.put("+delivery-batching", new SmcConfig(false, false, true, false, false));
        ROWS.put("+receive-batching", new SmcConfig(false, true, true, false, false));
        ROWS.put("+send-batching", new SmcConfig(true, true, true, false, false));
        ROWS.put("+null-sends", new SmcConfig(true, true, true, true, false));
        ROWS.put("+early-lock-release", new SmcConfig(true, true, true, true, true));
    }

    @Mixin
    BenchOptions options = new BenchOptions();

    @Override
    public Integer call() throws Exception
    {
        final Integer invalid = options.invalid();
        if (invalid != null)
        {
            return invalid;
        }
        final List<BenchRunner.Row> rows = BenchRunner.table(options, ROWS.entrySet().stream()
            .map(e -> new BenchRunner.Spec(e.getKey(), e.getValue(), null)).toList());
        final BenchRunner.Row base = rows.getFirst();
        final BenchRunner.Row full = rows.getLast();
        if (base.failure() == null && full.failure() == null && !options.json)
        {
            System.out.printf(java.util.Locale.ROOT, "full Spindle vs baseline: %.2fx throughput, %.2fx fewer writes " +
                "per message%n",
                full.msgsPerSec() / base.msgsPerSec(), base.writesPerMsg() / full.writesPerMsg());
        }
        return BenchRunner.exitCode(rows);
    }
}

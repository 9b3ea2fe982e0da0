package io.weft.bench;

import io.weft.config.SmcConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code weft bench}: Derecho-style bandwidth and latency of one configuration, members as separate processes.
 * Every switch of the Spindle ablation can be turned off; {@code weft bench ablation} runs the paper's table.
 */
@Command(name = "bench", description = "Measure multicast throughput and latency (members as separate processes).")
final class BenchCommand implements Callable<Integer>
{
    @Mixin
    BenchOptions options = new BenchOptions();

    @Option(names = "--no-send-batching", description = "Ablation: one push per message at the sender.")
    boolean noSendBatching;

    @Option(names = "--no-receive-batching", description = "Ablation: one message and one acknowledgement per receive pass.")
    boolean noReceiveBatching;

    @Option(names = "--no-delivery-batching", description = "Ablation: one message per delivery pass.")
    boolean noDeliveryBatching;

    @Option(names = "--no-null-sends", description = "Ablation: no null messages.")
    boolean noNullSends;

    @Option(names = "--no-early-lock-release", description = "Ablation: hold the state lock while posting pushes.")
    boolean noEarlyLockRelease;

    @Option(names = "--eager-nulls", description = "Spindle's eager null rule instead of the lazy one.")
    boolean eagerNulls;

    @Option(names = "--eager-delivered", description = "Push the delivered counter after every delivery pass " +
        "(weft.smc.lazy-delivered = false) instead of with the next acknowledgement.")
    boolean eagerDelivered;

    @Override
    public Integer call() throws Exception
    {
        final Integer invalid = options.invalid();
        if (invalid != null)
        {
            return invalid;
        }
        final SmcConfig smc = new SmcConfig(!noSendBatching, !noReceiveBatching, !noDeliveryBatching, !noNullSends,
            !noEarlyLockRelease, !eagerNulls, !eagerDelivered);
        final String name = smc.equals(SmcConfig.SPINDLE) ? "spindle" : smc.equals(SmcConfig.BASELINE) ? "baseline" :
            "custom";
        return BenchRunner.exitCode(BenchRunner.table(options, List.of(new BenchRunner.Spec(name, smc, null))));
    }
}

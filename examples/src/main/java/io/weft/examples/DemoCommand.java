package io.weft.examples;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/** {@code weft demo}: the README's first command. Until the multicast lands it is the 3-member SST demo on shm. */
@Command(name = "demo", description = "The main demo: three member processes on shm (currently the SST demo).")
final class DemoCommand implements Callable<Integer>
{
    @Override
    public Integer call() throws Exception
    {
        final SstDemoCommand demo = new SstDemoCommand();
        demo.transport = "shm";
        demo.members = 3;
        demo.count = 1_000_000;
        demo.workload = SstMember.Workload.counter;
        demo.timeout = java.time.Duration.ofMinutes(5);
        return demo.call();
    }
}

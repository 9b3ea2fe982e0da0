package io.weft.examples.avionics;

import io.weft.dds.DataWriter;
import io.weft.dds.DomainParticipant;

/** The engine monitor (member 3): each engine's N1 and EGT at 10 Hz, in volatile storage kept per engine. */
final class EngineMonitor implements Role
{
    private final Publisher publisher = new Publisher("engine-monitor", 10, this::tick);
    private final EngineReading reading = EngineReading.forWriting();
    private DataWriter<EngineReading> writer;
    private long ticks;

    @Override
    public void attach(final DomainParticipant participant)
    {
        writer = participant.createWriter(Avionics.engine(participant));
    }

    @Override
    public void start()
    {
        publisher.start();
    }

    private void tick()
    {
        for (int engine = 0; engine < Avionics.ENGINES; engine++)
        {
            final double wobble = Math.sin(ticks / 20.0 + engine);
            writer.write(reading.set(engine, ticks, 91 + engine * 0.4 + wobble, 610 + engine * 5 + 8 * wobble));
        }
        ticks++;
    }

    @Override
    public boolean command(final String[] words) throws InterruptedException
    {
        if (!"end".equals(words[0]))
        {
            return false;
        }
        stop();
        System.out.printf("WRITTEN engine=%d%n", ticks * Avionics.ENGINES);
        return true;
    }

    @Override
    public void stop() throws InterruptedException
    {
        publisher.stop();
    }
}

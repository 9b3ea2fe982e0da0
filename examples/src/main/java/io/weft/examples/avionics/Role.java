package io.weft.examples.avionics;

import io.weft.dds.DomainParticipant;

/** What one avionics member does: its readers and writers, its threads, and the demo's commands it obeys. */
interface Role
{
    /** Creates the readers and writers (before the participant enables: readers get every sample from the first). */
    void attach(DomainParticipant participant);

    /** Starts what the role does on its own (publishing), once the participant is enabled. */
    void start();

    /**
     * Obeys one command line of the demo (words split on spaces).
     *
     * @return false if the role does not know the command.
     */
    boolean command(String[] words) throws InterruptedException;

    /** Stops publishing and waits for the role's threads. */
    void stop() throws InterruptedException;
}

package io.weft.sst.shm;

import io.weft.sst.SstLayout;

import java.nio.file.Path;

/** Test process: creates member {@code args[2]}'s table file of group {@code args[1]} in {@code args[0]} and waits. */
public final class ShmFileHolder
{
    public static void main(final String[] args) throws InterruptedException
    {
        ShmTableFile.create(Path.of(args[0]), args[1], Integer.parseInt(args[2]), ShmStaleFileTest.LAYOUT, 2);
        System.out.println("created");
        Thread.sleep(Long.MAX_VALUE);
    }
}

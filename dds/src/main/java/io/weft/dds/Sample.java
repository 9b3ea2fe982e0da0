package io.weft.dds;

/** A decoded sample with its {@link SampleInfo}, as {@link DataReader#take} returns it. */
public record Sample<T>(T value, SampleInfo info)
{
}

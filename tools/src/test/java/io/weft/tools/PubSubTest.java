package io.weft.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft pubsub}: three processes of the README's pub/sub example read the same greetings in the same order. */
@Timeout(180)
class PubSubTest
{
    @Test
    void threeCopiesOfTheExampleReadTheSameGreetings()
    {
        final CommandRun run = CommandRun.of("pubsub", "--transport", "tcp");
        assertEquals(0, run.code(), run.output());
        assertTrue(run.output().contains("pubsub: OK: every member read the same 15 greetings in the same order"),
            run.output());
    }
}

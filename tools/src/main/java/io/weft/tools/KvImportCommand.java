package io.weft.tools;

import io.weft.examples.kv.RdbImport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code weft kv-import}: loads an RDB file (redis-server's dump.rdb, or one a member saved) into a running store
 * through one member's Redis port; every member applies it ({@link RdbImport}).
 */
@Command(name = "kv-import", description = "Load an RDB file (redis-server's dump.rdb) into a running key-value " +
    "store through a member's Redis port: each key is RESTOREd, replacing a key of its name.")
final class KvImportCommand implements Callable<Integer>
{
    @Parameters(index = "0", description = "The RDB file.")
    Path file;

    @Option(names = "--port", required = true, description = "A member's Redis protocol port.")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "The member's host (default 127.0.0.1).")
    String host;

    @Option(names = "--password-file", description = "AUTH with the password on this file's first line.")
    Path passwordFile;

    @Override
    public Integer call() throws Exception
    {
        try
        {
            final String password = passwordFile == null ? null :
                Files.readAllLines(passwordFile).getFirst().strip();
            final RdbImport.Outcome outcome = RdbImport.load(file, host, port, password);
            System.out.printf("kv-import: %d keys loaded into %s:%d from %s (%d expired in the file left out)%n",
                outcome.loaded(), host, port, file, outcome.expired());
            if (outcome.refused().isEmpty())
            {
                return 0;
            }
            System.err.printf("kv-import: %d keys refused:%n", outcome.refused().size());
            outcome.refused().stream().limit(20).forEach(r -> System.err.println("  " + r));
            return 1;
        }
        catch (final IllegalArgumentException | IOException | java.util.NoSuchElementException ex)
        {
            return Weft.refuse("kv-import: " + file + ": " + ex.getMessage());
        }
    }
}

namespace CosmosCompat;

/// <summary>Prints one line per check and counts the failures.</summary>
public sealed class Checks
{
    private int failures;

    public int Failures => this.failures;

    public void Check(bool ok, string what)
    {
        Console.WriteLine($"{(ok ? "ok  " : "FAIL")} {what}");
        if (!ok) Interlocked.Increment(ref this.failures);
    }

    /// <summary>Runs an operation that must fail with <paramref name="status"/>.</summary>
    public async Task ExpectStatusAsync(System.Net.HttpStatusCode status, string what, Func<Task> action, string? messagePart = null)
    {
        try
        {
            await action();
            this.Check(false, $"{what}: expected {(int)status}, it succeeded");
        }
        catch (Microsoft.Azure.Cosmos.CosmosException e)
        {
            var ok = e.StatusCode == status && (messagePart is null || e.Message.Contains(messagePart, StringComparison.Ordinal));
            this.Check(ok, $"{what}: {(int)e.StatusCode}{(messagePart is null ? "" : $" naming '{messagePart}'")}{(ok ? "" : $" (expected {(int)status}) {e.Message}")}");
        }
    }

    /// <summary>Polls <paramref name="condition"/> until it holds; the limit is a hang guard, not a timing assertion.</summary>
    public static async Task<bool> UntilAsync(Func<Task<bool>> condition, TimeSpan? guard = null)
    {
        var deadline = DateTime.UtcNow + (guard ?? TimeSpan.FromSeconds(60));
        while (DateTime.UtcNow < deadline)
        {
            if (await condition()) return true;
            await Task.Delay(200);
        }
        return false;
    }
}

/// <summary>The document shape of the checks.</summary>
public sealed class Doc
{
    [Newtonsoft.Json.JsonProperty("id")] public string Id { get; set; } = "";
    [Newtonsoft.Json.JsonProperty("pk")] public string Pk { get; set; } = "";
    [Newtonsoft.Json.JsonProperty("n")] public int N { get; set; }
    [Newtonsoft.Json.JsonProperty("tag", NullValueHandling = Newtonsoft.Json.NullValueHandling.Ignore)] public string? Tag { get; set; }
    [Newtonsoft.Json.JsonProperty("ttl", NullValueHandling = Newtonsoft.Json.NullValueHandling.Ignore)] public int? Ttl { get; set; }
}

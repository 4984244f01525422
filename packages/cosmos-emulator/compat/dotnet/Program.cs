// Drives the Cosmos DB emulator with Microsoft.Azure.Cosmos in Gateway mode, the way the Functions host's Cosmos DB
// extension uses it: once with endpoint discovery on, once with LimitToEndpoint = true. Every check prints a line;
// the process exits non-zero when any failed.
// Environment: COSMOS_ENDPOINT, COSMOS_KEY, and COSMOS_CERT (a PEM to trust, for https) when the endpoint is https.
using System.Net;
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using CosmosCompat;
using Microsoft.Azure.Cosmos;

var endpoint = Environment.GetEnvironmentVariable("COSMOS_ENDPOINT") ?? throw new InvalidOperationException("COSMOS_ENDPOINT is not set");
var key = Environment.GetEnvironmentVariable("COSMOS_KEY") ?? throw new InvalidOperationException("COSMOS_KEY is not set");
var certPath = Environment.GetEnvironmentVariable("COSMOS_CERT");
var trusted = string.IsNullOrEmpty(certPath) ? null : X509Certificate2.CreateFromPem(File.ReadAllText(certPath));
var checks = new Checks();

foreach (var limitToEndpoint in new[] { false, true })
{
    var mode = limitToEndpoint ? "LimitToEndpoint" : "discovery";
    Console.WriteLine($"-- {endpoint} ({mode})");
    using var client = new CosmosClient(endpoint, key, new CosmosClientOptions
    {
        ConnectionMode = ConnectionMode.Gateway,
        LimitToEndpoint = limitToEndpoint,
        MaxRetryAttemptsOnRateLimitedRequests = 0,
        HttpClientFactory = () => new HttpClient(Handler(trusted)),
    });
    using var bulkClient = new CosmosClient(endpoint, key, new CosmosClientOptions
    {
        ConnectionMode = ConnectionMode.Gateway,
        LimitToEndpoint = limitToEndpoint,
        AllowBulkExecution = true,
        HttpClientFactory = () => new HttpClient(Handler(trusted)),
    });
    try
    {
        await new ItemChecks(client, checks, $"dotnet-{(limitToEndpoint ? "limit" : "disc")}-{Guid.NewGuid():N}"[..28]).RunAsync();
        var serverDatabase = (await client.CreateDatabaseAsync($"server-{Guid.NewGuid():N}"[..28])).Database;
        try
        {
            await new ServerChecks(checks, serverDatabase, endpoint, () => Handler(trusted)).RunAsync();
        }
        finally
        {
            await serverDatabase.DeleteAsync();
        }
        using var admin = new HttpClient(Handler(trusted)) { BaseAddress = new Uri(endpoint) };
        await new BulkChecks(bulkClient, admin, checks, $"dotnet-bulk-{Guid.NewGuid():N}"[..28]).RunAsync();
    }
    catch (Exception e)
    {
        checks.Check(false, $"[{mode}] unexpected exception: {e}");
    }
}

// A query the SDK could not plan once crashed the process from a finalizer at the next collection.
GC.Collect();
GC.WaitForPendingFinalizers();
GC.Collect();
checks.Check(true, "the process survives a full garbage collection after its queries");
Console.WriteLine(checks.Failures == 0 ? "PASS .NET Cosmos compatibility check" : $"FAILED {checks.Failures} check(s)");
return checks.Failures == 0 ? 0 : 1;

// Trusts exactly the emulator's certificate (its own root), with the host name still checked.
static HttpMessageHandler Handler(X509Certificate2? trusted)
{
    var handler = new HttpClientHandler();
    if (trusted is null) return handler;
    handler.ServerCertificateCustomValidationCallback = (_, cert, _, errors) =>
    {
        if (cert is null || (errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0) return false;
        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.Add(trusted);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        return chain.Build(cert);
    };
    return handler;
}

// The web app manifest (served as /manifest.webmanifest, linked from every
// page by Next): Countersign installs as an app that opens on the queue.
import type { MetadataRoute } from "next";

export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Countersign",
    short_name: "Countersign",
    description: "Human approval for AI-agent tool calls",
    id: "/approvals",
    start_url: "/approvals",
    scope: "/",
    display: "standalone",
    background_color: "#f8fafc",
    theme_color: "#1d4ed8",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
  };
}

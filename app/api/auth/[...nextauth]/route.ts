import { handlers } from "@/lib/auth/nextauth";
import { loggedRoute } from "@/lib/http/logged-route";

export const GET = loggedRoute("auth", handlers.GET);
export const POST = loggedRoute("auth", handlers.POST);

import { LoginErrorType } from "@shopify/shopify-app-remix/server";

interface LoginErrors {
  shop?: string;
}

export function loginErrorMessage(loginErrors: { shop?: LoginErrorType } | undefined): LoginErrors {
  if (loginErrors?.shop === LoginErrorType.MissingShop) return { shop: "Please enter your shop domain to log in" };
  if (loginErrors?.shop === LoginErrorType.InvalidShop) return { shop: "Please enter a valid shop domain to log in" };
  return {};
}
